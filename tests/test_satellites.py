import pandas as pd
import polars as pl
import pytest

from quaestio import SatelliteError, load_satellites
from quaestio.satellites import TABLES

KEYWORD_HEADER = (
    "concept,language,keyword,keyword_priority,weight,match,status,source,added_by,added_at\n"
)


def _reasons(exc: SatelliteError) -> list[tuple]:
    return [
        (c["table"], c["row"], c["column"], c["reason"].split(";")[0].split(":")[0])
        for c in exc.failure_cases
    ]


def test_bundled_tables_load_and_validate(bundled):
    assert set(bundled.tables) == set(TABLES)
    for name in (
        "concepts",
        "concept_keywords",
        "answer_types",
        "answer_shapes",
        "cues",
        "anchors",
        "stopwords",
    ):
        assert bundled.tables[name].height > 0, f"bundled {name} is empty"
    assert set(bundled.answer_shapes["answer_shape"]) == {
        "single",
        "listing",
        "table",
        "tree",
        "nested_json",
    }
    assert bundled.concept_keywords["weight"].dtype == pl.Float64


def test_bundled_dictionary_covers_domains_and_languages(bundled):
    families = set(bundled.concepts["doc_family"].drop_nulls())
    assert {"insurance", "legal", "finance", "medical", "geography"} <= families
    langs = set(bundled.concept_keywords["language"])
    assert {"en", "fr", "es", "de", "*"} <= langs


def test_missing_tables_in_a_folder_come_from_the_bundled_defaults(tiny_sats):
    assert tiny_sats.origins["concepts"][0].endswith("concepts.csv")
    assert tiny_sats.origins["answer_types"] == ("bundled:answer_types.csv",)
    assert tiny_sats.concepts.height == 6


def test_every_bad_row_is_reported_at_once_and_nothing_loads(sat_folder):
    (sat_folder / "concept_keywords.csv").write_text(
        KEYWORD_HEADER
        + "\n".join(
            [
                "premium,en,premium,primary,1.0,fuzzy,validated,expert,a,2026-01-01",
                # a duplicate key
                "premium,en,premium,primary,1.0,fuzzy,validated,expert,a,2026-01-01",
                "nope,en,thing,primary,1.0,fuzzy,validated,expert,a,2026-01-01",  # unknown concept
                "premium,en,cost,tertiary,1.0,fuzzy,validated,expert,a,2026-01-01",  # bad enum
                "premium,en,price,primary,1.5,fuzzy,validated,expert,a,2026-01-01",  # weight > 1
                "premium,en,fee,primary,0,fuzzy,validated,expert,a,2026-01-01",  # weight 0
                # a bad language and a bad date
                "premium,english,charge,primary,1,fuzzy,validated,expert,a,2026-13-01",
            ]
        )
        + "\n"
    )
    (sat_folder / "anchors.csv").write_text(
        "anchor_id,pattern,case_sensitive,description,weight\n"
        "broken,(unclosed,true,x,1\nempty,a*,true,x,1\n"
    )
    with pytest.raises(SatelliteError) as info:
        load_satellites(sat_folder)
    got = _reasons(info.value)
    assert ("anchors", 2, "pattern", "regex does not compile") in got
    assert (
        "anchors",
        3,
        "pattern",
        "regex matches the empty string, so it would match anywhere",
    ) in got
    assert ("concept_keywords", 5, "keyword_priority", "must be one of primary, secondary") in got
    assert ("concept_keywords", 6, "weight", "must be a number in (0, 1]") in got
    assert ("concept_keywords", 7, "weight", "must be a number in (0, 1]") in got
    assert ("concept_keywords", 8, "language", "must be an ISO 639 code or *") in got
    assert ("concept_keywords", 8, "added_at", "must be a date written YYYY-MM-DD") in got
    dupes = [c for c in info.value.failure_cases if c["reason"] == "duplicate key"]
    assert [c["row"] for c in dupes] == [2, 3]
    message = str(info.value)
    assert "concept_keywords.csv row 6 (weight='1.5')" in message
    assert "nothing was loaded" in message
    frame = info.value.failure_frame()
    assert list(frame.columns) == ["source", "table", "row", "column", "value", "reason"]


def test_foreign_keys_are_checked_after_types(sat_folder):
    (sat_folder / "concept_keywords.csv").write_text(
        KEYWORD_HEADER + "ghost,en,thing,primary,1.0,fuzzy,validated,expert,a,2026-01-01\n"
    )
    with pytest.raises(SatelliteError) as info:
        load_satellites(sat_folder)
    assert _reasons(info.value) == [("concept_keywords", 2, "concept", "unknown concept")]


def test_missing_required_column_and_unknown_file(sat_folder):
    (sat_folder / "concepts.csv").write_text("concept,doc_family\npremium,insurance\n")
    (sat_folder / "concept.extra.csv").write_text("a\n1\n")
    with pytest.raises(SatelliteError) as info:
        load_satellites(sat_folder)
    text = str(info.value)
    assert "required column is missing" in text and "definition" in text
    assert "Did you mean 'concepts'?" in text


def test_unknown_defaults_key_and_bad_value(sat_folder):
    (sat_folder / "defaults.csv").write_text(
        "key,value,description\nweight_direkt,0.5,x\nfuzzy_min_length,four,x\n"
    )
    with pytest.raises(SatelliteError) as info:
        load_satellites(sat_folder)
    assert [c["reason"][:20] for c in info.value.failure_cases] == [
        "unknown key; known k",
        "fuzzy_min_length mus",
    ]


def test_cue_with_unknown_family_is_rejected(sat_folder):
    (sat_folder / "cues.csv").write_text(
        "cue_id,family,target,language,pattern,weight\nc1,explicit_lists,,en,x,1\n"
    )
    with pytest.raises(SatelliteError, match="must be one of explicit_quote"):
        load_satellites(sat_folder)


def test_a_table_may_be_split_over_several_files(sat_folder):
    (sat_folder / "concept_keywords.extra.csv").write_text(
        KEYWORD_HEADER + "premium,es,cuota,secondary,0.7,fuzzy,validated,expert,a,2026-01-01\n"
    )
    sats = load_satellites(sat_folder)
    assert "cuota" in sats.concept_keywords["keyword"].to_list()
    assert len(sats.origins["concept_keywords"]) == 2


def test_parquet_tables_load_like_csv(sat_folder):
    frame = pl.read_csv(sat_folder / "concepts.csv")
    (sat_folder / "concepts.csv").unlink()
    frame.write_parquet(sat_folder / "concepts.parquet")
    assert load_satellites(sat_folder).concepts.height == frame.height


def test_extra_rows_from_pandas_and_polars(tiny_sats, sat_folder):
    extra_pd = pd.DataFrame(
        {"concept": ["premium"], "language": ["de"], "keyword": ["Prämie"], "weight": [0.9]}
    )
    extra_pl = pl.DataFrame({"concept": ["deductible"], "definition": ["What you pay first."]})
    sats = load_satellites(
        sat_folder, extra={"concept_keywords": extra_pd, "concepts": [extra_pl]}
    )
    row = sats.concept_keywords.filter(keyword="Prämie").row(0, named=True)
    assert row["match"] == "fuzzy" and row["status"] == "validated"  # defaults filled
    assert "deductible" in sats.concepts["concept"].to_list()
    assert sats.origins["concepts"][-1] == "extra['concepts'][0]"


def test_colliding_extra_row_needs_override(sat_folder):
    changed = pd.DataFrame(
        {"concept": ["premium"], "language": ["en"], "keyword": ["premium"], "weight": [0.3]}
    )
    with pytest.raises(SatelliteError, match="duplicate key"):
        load_satellites(sat_folder, extra={"concept_keywords": changed})
    sats = load_satellites(sat_folder, extra={"concept_keywords": changed}, override=True)
    weights = sats.concept_keywords.filter(keyword="premium", language="en")["weight"]
    assert weights.to_list() == [0.3]


def test_extra_for_unknown_table_suggests_the_name(sat_folder):
    with pytest.raises(SatelliteError, match="Did you mean 'concept_keywords'"):
        load_satellites(sat_folder, extra={"concept_keyword": pl.DataFrame({"a": [1]})})


def test_version_changes_with_content(sat_folder, tiny_sats):
    extra = pl.DataFrame({"concept": ["x_new"], "definition": ["new"]})
    assert load_satellites(sat_folder, extra={"concepts": extra}).version != tiny_sats.version
    assert load_satellites(sat_folder).version == tiny_sats.version


def test_written_tables_load_back_identically(tmp_path, tiny_sats):
    tiny_sats.write(tmp_path / "out")
    again = load_satellites(tmp_path / "out")
    assert again.version == tiny_sats.version


def test_cue_targets_are_checked_per_family(sat_folder):
    (sat_folder / "cues.csv").write_text(
        "cue_id,family,target,language,pattern,weight\n"
        "t1,answer_type,amount,en,how much,1\n"
        "t2,answer_type,amunt,en,how much,1\n"
        "t3,answer_shape,heap,en,list,1\n"
        "t4,answer_shape,,en,list,1\n"
    )
    with pytest.raises(SatelliteError) as info:
        load_satellites(sat_folder)
    assert [(c["row"], c["value"]) for c in info.value.failure_cases] == [
        (3, "amunt"),
        (4, "heap"),
        (5, None),
    ]


def test_prompt_parts_are_validated_on_load(tmp_path):
    (tmp_path / "prompt_parts.csv").write_text(
        "part_id,kind,target,language,text\n"
        "role,role,,*,You answer.\n"
        "fmt,format,bogus,*,Give a value.\n"
        "tone,tone,single,*,Be brief.\n"
    )
    with pytest.raises(SatelliteError) as info:
        load_satellites(tmp_path)
    reasons = [(c["row"], c["column"], c["value"]) for c in info.value.failure_cases]
    assert (3, "target", "bogus") in reasons, reasons
    assert (4, "target", "single") in reasons, reasons
    # the rows that keep an answer honest cannot be left out
    assert (None, "kind", "gaps") in reasons and (None, "kind", "task") in reasons, reasons
