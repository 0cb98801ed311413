"""Admission of reviewed candidates and bulk loading of closed sets: validated, atomic."""

from __future__ import annotations

import polars as pl
import pytest

from quaestio import SatelliteError, load_satellites, parse_question
from quaestio.curation import admit_candidates, load_closed_set, rejected_phrases

HEADER = "decision,kind,concept,language,keyword,keyword_priority,weight,match\n"


def _review(tmp_path, body: str):
    path = tmp_path / "candidates.csv"
    path.write_text(HEADER + body)
    return path


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_admission_writes_exactly_the_accepted_rows_and_remembers_rejections(tmp_path, sat_folder):
    review = _review(
        tmp_path,
        "accept,variant,premium,en,insurance premium,secondary,0.9,fuzzy\n"
        "reject,variant,premium,en,premium income,secondary,0.8,fuzzy\n"
        ",variant,premium,en,undecided phrase,secondary,0.8,fuzzy\n"
        "reject,new_concept,,en,board of directors,,,\n",
    )
    result = admit_candidates(review, sat_folder, added_by="ana", added_at="2026-12-01")
    assert result.pending == 1
    written = pl.read_csv(sat_folder / "concept_keywords.discovery.csv", infer_schema=False)
    assert written.rows() == [
        (
            "premium",
            "en",
            "insurance premium",
            "secondary",
            "0.9",
            "fuzzy",
            "validated",
            "discovery",
            "ana",
            "2026-12-01",
        ),
        (
            "premium",
            "en",
            "premium income",
            "secondary",
            "0.8",
            "fuzzy",
            "rejected",
            "discovery",
            "ana",
            "2026-12-01",
        ),
    ]
    assert rejected_phrases(sat_folder) == {("en", "board of directors")}
    sats = load_satellites(sat_folder)
    row = parse_question("What is the insurance premium income?", sats)
    texts = {k.text for k in row.keywords if k.concept == "premium"}
    assert "insurance premium" in texts and "premium income" not in texts


def test_a_second_admission_appends(tmp_path, sat_folder):
    admit_candidates(
        _review(tmp_path, "accept,variant,premium,en,gross premium,,0.8,\n"),
        sat_folder,
        added_by="ana",
    )
    admit_candidates(
        _review(tmp_path, "accept,variant,premium,en,net premium,,0.7,\n"),
        sat_folder,
        added_by="bob",
    )
    written = pl.read_csv(sat_folder / "concept_keywords.discovery.csv", infer_schema=False)
    assert written.select("keyword", "added_by", "keyword_priority", "match").rows() == [
        ("gross premium", "ana", "secondary", "fuzzy"),
        ("net premium", "bob", "secondary", "fuzzy"),
    ]


def test_bad_rows_are_all_reported_by_line_and_nothing_is_written(tmp_path, sat_folder):
    review = _review(
        tmp_path,
        "accept,variant,premum,en,insurance premium,secondary,0.9,fuzzy\n"  # line 2
        "accept,variant,premium,en,Annual Premium,secondary,0.9,fuzzy\n"  # 3
        "accept,variant,premium,en,,secondary,0.9,fuzzy\n"  # 4
        "accept,variant,premium,en,gross premium,secondary,1.5,fuzzy\n"  # 5
        "accept,variant,premium,en,net premium,secondary,0,fuzzy\n"  # 6
        "maybe,variant,premium,en,gross premium,secondary,0.5,fuzzy\n"  # 7
        "accept,variant,premium,en,written premium,secondary,0.7,fuzzy\n"  # 8
        "accept,variant,premium,en,written premium,secondary,0.7,fuzzy\n"  # 9
        "accept,variant,premium,en,fine premium,secondary,0.7,fuzzy\n",
    )  # 10
    before = _snapshot(sat_folder)
    with pytest.raises(SatelliteError) as err:
        admit_candidates(review, sat_folder, added_by="ana")
    cases = {(c["row"], c["column"]): c for c in err.value.failure_cases}
    assert set(cases) == {
        (2, "concept"),
        (3, "keyword"),
        (4, "keyword"),
        (5, "weight"),
        (6, "weight"),
        (7, "decision"),
        (9, "keyword"),
    }
    assert all(c["source"] == str(review) for c in cases.values())
    assert "unknown concept" in cases[(2, "concept")]["reason"]
    assert "duplicate of existing row" in cases[(3, "keyword")]["reason"]
    assert cases[(4, "keyword")]["reason"] == "value is required"
    assert cases[(5, "weight")]["value"] == "1.5" and "(0, 1]" in cases[(5, "weight")]["reason"]
    assert "duplicate of line 8" in cases[(9, "keyword")]["reason"]
    assert f"{review} row 5 (weight='1.5')" in str(err.value)
    assert _snapshot(sat_folder) == before


def test_admission_refuses_a_folder_that_borrows_the_bundled_keywords(tmp_path):
    folder = tmp_path / "only_stopwords"
    folder.mkdir()
    (folder / "stopwords.csv").write_text("language,word\nen,the\n")
    with pytest.raises(SatelliteError, match="holds no concept_keywords file"):
        admit_candidates(
            _review(tmp_path, "accept,variant,premium,en,x y,,0.5,\n"), folder, added_by="ana"
        )


def test_closed_set_loads_concepts_and_keywords_and_reloading_replaces_them(tmp_path, sat_folder):
    kw = tmp_path / "planets_kw.csv"
    kw.write_text(
        "concept,language,keyword\nplanet_mars,en,Mars\nplanet_mars,fr,Mars\n"
        "planet_venus,en,Venus\n"
    )
    concepts = tmp_path / "planets.csv"
    concepts.write_text(
        "concept,definition,doc_family\nplanet_mars,The fourth planet.,astro\n"
        "planet_venus,The second planet.,astro\n"
    )
    loaded = load_closed_set(
        sat_folder,
        name="planets",
        keywords=kw,
        concepts=concepts,
        added_by="ana",
        added_at="2026-12-01",
    )
    assert (loaded.concepts, loaded.keywords) == (2, 3)
    again = load_closed_set(
        sat_folder,
        name="planets",
        keywords=kw,
        concepts=concepts,
        added_by="ana",
        added_at="2026-12-01",
    )
    assert again.keywords == 3  # replaced, not duplicated
    sats = load_satellites(sat_folder)
    assert set(sats.concepts["concept"]) >= {"planet_mars", "planet_venus", "premium"}
    rows = sats.concept_keywords.filter(pl.col("concept") == "planet_mars")
    assert rows.select("weight", "status", "source", "added_by").unique().rows() == [
        (1.0, "validated", "closed_set", "ana")
    ]


def test_closed_set_bad_rows_name_the_input_file_and_nothing_is_written(tmp_path, sat_folder):
    kw = tmp_path / "bad.csv"
    kw.write_text(
        "concept,language,keyword,weight\npremium,en,premium,\n"
        "premium,english,policy cost,\nprime_rate,en,base rate,2\n"
        "planet_pluto,en,Pluto,\n"
    )
    before = _snapshot(sat_folder)
    with pytest.raises(SatelliteError) as err:
        load_closed_set(sat_folder, name="extra", keywords=kw)
    found = {(c["source"], c["row"], c["column"]) for c in err.value.failure_cases}
    assert (str(kw), 3, "language") in found and (str(kw), 4, "weight") in found
    assert (str(kw), 2, "concept,language,keyword") in found  # premium/en/premium exists
    assert (str(kw), 5, "concept") in found  # reported with the rest, not in a second pass
    assert _snapshot(sat_folder) == before


def test_bundled_closed_set_loads_in_one_call(tmp_path, sat_folder):
    from quaestio.curation import bundled_closed_set

    concepts, keywords = bundled_closed_set("currencies")
    loaded = load_closed_set(sat_folder, name="currencies", keywords=keywords, concepts=concepts)
    assert loaded.concepts > 100 and loaded.keywords > 1000
    assert "currency_eur" in load_satellites(sat_folder).concepts["concept"].to_list()
