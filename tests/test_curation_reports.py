"""Coverage reports on a hand-built batch, corpus coverage, and satellite diffs."""

from __future__ import annotations

import shutil

import polars as pl
import pytest

from quaestio import load_satellites, parse_questions
from quaestio.curation import corpus_coverage, coverage_report, reparse_changes, satellite_diff

QUESTIONS = [
    "What is the annual premium?",  # premium
    "Quelle est la prime en Allemagne ?",  # premium (prime: fr), country_de
    "What is the limit?",  # limit: limit_of_indemnity or sub_limit
    "Hello there, how are you?",  # nothing
    "What is the prime rate?",  # prime_rate
    "",
]  # an error row


@pytest.fixture(scope="module")
def report(tiny_sats):
    return coverage_report(parse_questions(QUESTIONS, tiny_sats, as_="polars"), tiny_sats)


def test_summary_counts_parsed_questions_and_leaves_error_rows_out(report):
    summary = dict(report.summary.iter_rows())
    assert summary["questions"] == "6" and summary["error_rows"] == "1"
    assert summary["parsed"] == "5" and summary["matched_no_concept"] == "1"
    assert float(summary["question_hit_rate"]) == pytest.approx(0.8)
    assert report.unmatched["original_question"].to_list() == ["Hello there, how are you?"]


def test_hit_rate_per_concept_and_concepts_never_hit(report):
    rates = dict(report.by_concept.select("concept", "questions").iter_rows())
    assert rates == {
        "premium": 2,
        "country_de": 1,
        "limit_of_indemnity": 1,
        "prime_rate": 1,
        "early_termination": 0,
        "sub_limit": 0,
    }
    assert report.by_concept.filter(concept="premium")["hit_rate"][0] == pytest.approx(0.4)
    # early_termination has four rows in the fixture, one of them only a candidate.
    assert report.never_hit.rows() == [
        ("early_termination", "legal", 3),
        ("sub_limit", "insurance", 2),
    ]


def test_ambiguous_keywords_say_how_they_were_resolved(report):
    rows = {r["text"]: r for r in report.ambiguous.to_dicts()}
    assert set(rows) == {"limit", "prime"}
    assert rows["limit"]["candidates"] == ["limit_of_indemnity", "sub_limit"]
    assert rows["limit"]["chosen"] == "limit_of_indemnity"
    assert rows["prime"]["chosen"] == "premium" and rows["prime"]["method"] == "language"


def test_hit_rate_per_language_and_family(report):
    assert report.by_language.rows() == [("en", 4, 3, 0.75), ("fr", 1, 1, 1.0)]
    family = {r[0]: r[1:] for r in report.by_family.rows()}
    assert family["insurance"] == (3, 2, 3, pytest.approx(0.6))
    assert family["legal"] == (1, 0, 0, 0.0)


def test_report_accepts_pandas(tiny_sats):
    qdf = parse_questions(QUESTIONS[:2], tiny_sats, as_="pandas")
    assert (
        coverage_report(qdf, tiny_sats).by_concept.filter(concept="premium")["questions"][0] == 2
    )


def test_corpus_coverage_finds_absent_variants_and_one_language_concepts(tiny_sats):
    corpus = pl.DataFrame(
        {
            "doc_id": ["a", "b", "c"],
            "text": [
                "The annual premium is due. The prime rate rose.",
                "La prime est payée chaque année, et la cotisation aussi.",
                "Die Prämie wird in Deutschland bezahlt, und der Vertrag ist gültig.",
            ],
            "language": ["en", "fr", "de"],
        }
    )
    cov = corpus_coverage(corpus, tiny_sats)
    found = {(r["concept"], r["keyword"]): r["occurrences"] for r in cov.variants.to_dicts()}
    assert found[("premium", "annual premium")] == 1 and found[("premium", "prime")] == 2
    assert found[("premium", "premium")] == 1 and found[("prime_rate", "prime rate")] == 1
    assert found[("country_de", "Deutschland")] == 1
    assert ("limit_of_indemnity", "limit of indemnity") in set(
        cov.absent.select("concept", "keyword").rows()
    )
    single = {
        r["concept"]: (r["found_in"], r["missing_languages"])
        for r in cov.single_language.to_dicts()
    }
    assert single["country_de"] == (["de"], ["en", "fr"])
    assert "premium" not in single  # found in English and French documents


def test_corpus_language_is_detected_from_stopwords(tiny_sats):
    from quaestio.curation import read_corpus

    docs = read_corpus(
        pl.DataFrame(
            {
                "text": [
                    "Le contrat et la prime de la police.",
                    "The policy and the premium of the contract.",
                ]
            }
        ),
        tiny_sats,
    )
    assert docs["language"].to_list() == ["fr", "en"]


@pytest.fixture
def two_versions(tmp_path, sat_folder):
    new = tmp_path / "new"
    shutil.copytree(sat_folder, new)
    path = new / "concept_keywords.csv"
    lines = path.read_text().splitlines()
    lines = [line for line in lines if not line.startswith("sub_limit,en,limit,")]
    lines = [
        line.replace("premium,fr,cotisation,secondary,0.9", "premium,fr,cotisation,secondary,0.5")
        for line in lines
    ]
    lines.append(
        "premium,en,insurance premium,secondary,0.9,fuzzy,validated,discovery,ana,2026-12-01"
    )
    path.write_text("\n".join(lines) + "\n")
    return load_satellites(sat_folder), load_satellites(new)


def test_satellite_diff_lists_added_removed_and_changed_rows(two_versions):
    diff = satellite_diff(*two_versions, tables=["concept_keywords", "concepts"])
    rows = {(r["key"], r["change"]): r for r in diff.to_dicts()}
    assert set(rows) == {
        ("premium / fr / cotisation", "changed"),
        ("premium / en / insurance premium", "added"),
        ("sub_limit / en / limit", "removed"),
    }
    changed = rows[("premium / fr / cotisation", "changed")]
    assert (changed["column"], changed["old_value"], changed["new_value"]) == (
        "weight",
        "0.9",
        "0.5",
    )
    assert (
        '"source": "discovery"' in rows[("premium / en / insurance premium", "added")]["new_value"]
    )


def test_reparse_changes_show_which_rows_move_and_by_which_column(two_versions):
    changes = reparse_changes(
        ["What is the limit?", "What is the insurance premium?", "Hello there"], *two_versions
    )
    by_question = changes.group_by("question_id").agg("column")
    moved = dict(by_question.iter_rows())
    assert set(moved) == {"q0", "q1"}  # the greeting does not change
    # 'limit' is no longer ambiguous once sub_limit loses it, so no clarification either.
    assert {"ambiguous_keywords", "suggested_clarification"} <= set(moved["q0"])
    q1 = changes.filter(question_id="q1", column="keywords")
    assert '"insurance premium"' in q1["new_value"][0]
    assert '"insurance premium"' not in q1["old_value"][0]


def test_curation_imports_no_heavy_library():
    import subprocess
    import sys

    code = (
        "import sys, quaestio.curation, quaestio.cli; "
        "print([m for m in ('torch', 'sentence_transformers', 'sklearn', 'hdbscan') "
        "if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_corpus_coverage_matches_cased_codes_case_sensitively(tiny_sats):
    # Issue 13, item 12: "de", "is", "and" in running text are words, not the codes DE, IS...
    extra = pl.DataFrame(
        {
            "concept": ["country_de"] * 2,
            "language": ["*"] * 2,
            "keyword": ["IS", "AND"],
            "weight": ["0.7"] * 2,
            "match": ["cased"] * 2,
        }
    )
    sats = load_satellites(tiny_sats_folder(), extra={"concept_keywords": extra})
    corpus = pl.DataFrame(
        {
            "doc_id": ["a", "b"],
            "text": [
                "This is the policy and it is de facto valid.",
                "Shipped to DE and IS; DEU code.",
            ],
            "language": ["en", "en"],
        }
    )
    found = {
        r["keyword"]: r["occurrences"]
        for r in corpus_coverage(corpus, sats).variants.to_dicts()
        if r["concept"] == "country_de"
    }
    assert found["DE"] == 1 and found["IS"] == 1 and found["DEU"] == 1
    assert found["AND"] == 0  # "and" twice, never "AND"
    assert found["Deutschland"] == 0


def tiny_sats_folder():
    from conftest import FIXTURES

    return FIXTURES / "satellites"


def test_satellite_diff_shows_rejected_discoveries_as_rejected(tmp_path, sat_folder):
    new = tmp_path / "new"
    shutil.copytree(sat_folder, new)
    with (new / "concept_keywords.csv").open("a") as fh:
        fh.write(
            "premium,en,insurance fee,secondary,0.9,fuzzy,rejected,discovery,ana,"
            "2026-12-01\n"
            "premium,en,insurance premium,secondary,0.9,fuzzy,validated,discovery,ana,"
            "2026-12-01\n"
        )
    diff = satellite_diff(
        load_satellites(sat_folder), load_satellites(new), tables=["concept_keywords"]
    )
    changes = dict(zip(diff["key"], diff["change"]))
    assert changes == {
        "premium / en / insurance fee": "rejected",
        "premium / en / insurance premium": "added",
    }
