"""Discovery on the bundled sample corpus with the real packaged model and real HDBSCAN.

The concept tables are the tiny test fixtures (so few keywords to embed); the stopwords are
the bundled ones (the fixtures hold only a handful). Embeddings are cached once per session.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("sentence_transformers")
pytest.importorskip("sklearn")

from quaestio import load_satellites  # noqa: E402
from quaestio.curation import REVIEW_COLUMNS, admit_candidates, rejected_phrases  # noqa: E402
from quaestio.curation.discover import discover_candidates, write_candidates  # noqa: E402
from quaestio.curation.phrases import extract_phrases  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "curation_corpus"
FIXTURES = ROOT / "tests" / "fixtures" / "satellites"
DAMAGE = {
    "Water damage",
    "storm damage",
    "Flood damage",
    "Fire damage",
    "Hail damage",
    "Smoke damage",
}


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("embeddings")


@pytest.fixture(scope="session")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("sats") / "sats"
    shutil.copytree(FIXTURES, out)
    (out / "stopwords.csv").unlink()
    return out


@pytest.fixture(scope="session")
def found(folder, cache_dir):
    return discover_candidates(CORPUS, load_satellites(folder), cache_dir=cache_dir)


def test_phrases_are_bounded_by_stopwords_and_counted_per_language(folder):
    phrases = extract_phrases(CORPUS, load_satellites(folder))
    rows = {(r["phrase"], r["language"]): r for r in phrases.to_dicts()}
    assert rows[("insurance premium", "en")]["count"] == 4
    assert rows[("insurance premium", "en")]["docs"] == 2
    assert ("prime d'assurance", "fr") in rows and ("prima del seguro", "es") in rows
    assert ("limit of indemnity", "en") in rows  # a connector inside a term
    assert not [p for p, _ in rows if p.split()[0].lower() in {"the", "and", "of", "le", "la"}]
    examples = rows[("insurance premium", "en")]["examples"]
    assert len(examples) == 2 and all("insurance premium" in e.lower() for e in examples)


def test_a_known_concept_gets_its_corpus_variants_with_evidence(found):
    premium = found.candidates.filter(kind="variant", concept="premium")
    assert {"yearly premium", "insurance premium", "premium payment"} <= set(premium["keyword"])
    assert "annual premium" not in set(found.candidates["keyword"])  # already a keyword
    row = premium.filter(keyword="yearly premium").to_dicts()[0]
    assert row["nearest_keyword"] == "annual premium" and row["similarity"] > 0.9
    assert row["count"] == 3 and row["docs"] == 2 and "yearly premium" in row["examples"]
    cluster = found.clusters.filter(cluster_id=row["cluster_id"]).to_dicts()[0]
    assert "premium" in cluster["concepts"].split("; ")
    assert (found.candidates.filter(kind="variant")["similarity"] >= 0.6).all()


def test_a_cluster_with_no_known_keyword_is_a_possible_new_concept(found):
    new = found.candidates.filter(kind="new_concept")
    damage = new.filter(pl.col("keyword").is_in(list(DAMAGE)))
    assert set(damage["keyword"]) == DAMAGE
    assert damage["cluster_id"].n_unique() == 1 and set(damage["concept"]) == {""}
    assert damage["proposed_concept"][0].endswith("damage")
    cid = damage["cluster_id"][0]
    assert found.clusters.filter(cluster_id=cid)["keywords"][0] == 0


def test_rerun_reads_the_cache(folder, cache_dir, found):
    again = discover_candidates(CORPUS, load_satellites(folder), cache_dir=cache_dir)
    assert again.timings["encoded"] == 0
    assert again.candidates.equals(found.candidates)


def test_review_file_round_trip_and_rejections_are_not_proposed_again(
    tmp_path, folder, cache_dir, found
):
    own = tmp_path / "sats"
    shutil.copytree(folder, own)
    review = write_candidates(found.candidates, tmp_path / "candidates.csv")
    frame = pl.read_csv(review, infer_schema=False)
    assert tuple(frame.columns) == REVIEW_COLUMNS
    decide = {"yearly premium": "accept", "insurance premium": "reject", "Fire damage": "reject"}
    frame = frame.with_columns(
        pl.col("keyword").replace_strict(decide, default="").alias("decision")
    )
    frame.write_csv(review)
    result = admit_candidates(review, own, added_by="ana", added_at="2026-12-01")
    assert result.admitted.select("concept", "keyword", "status", "source").rows() == [
        ("premium", "yearly premium", "validated", "discovery")
    ]
    assert rejected_phrases(own) == {("en", "fire damage")}
    after = discover_candidates(
        CORPUS, load_satellites(own), cache_dir=cache_dir, rejected=rejected_phrases(own)
    )
    proposed = set(after.candidates["keyword"])
    assert not proposed & {"yearly premium", "insurance premium", "Fire damage"}
    assert "premium payment" in proposed and "Hail damage" in proposed


def test_too_few_phrases_is_an_empty_explained_result(folder, cache_dir):
    sats = load_satellites(folder)
    tiny = pl.DataFrame({"text": ["The storm damage was large. The storm damage was paid."]})
    result = discover_candidates(tiny, sats, cache_dir=cache_dir)
    assert result.candidates.is_empty() and result.clusters.is_empty()
    assert "fewer than min_cluster_size=5" in result.message
    nothing = discover_candidates(
        pl.DataFrame({"text": ["It is 42. And 7, or 12."]}), sats, cache_dir=cache_dir
    )
    assert nothing.candidates.is_empty() and nothing.message.startswith("0 distinct phrase")


def test_missing_corpus_is_named():
    with pytest.raises(Exception, match="no-such-folder"):
        discover_candidates(CORPUS / "no-such-folder", load_satellites(FIXTURES))


def test_discover_then_admit_from_the_cli(tmp_path, folder, cache_dir, found):
    from click.testing import CliRunner

    from quaestio.cli import cli

    own = tmp_path / "sats"
    shutil.copytree(folder, own)
    out = tmp_path / "candidates.csv"
    result = CliRunner().invoke(
        cli,
        [
            "discover",
            str(CORPUS),
            "-o",
            str(out),
            "--satellites",
            str(own),
            "--cache-dir",
            str(cache_dir),
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"candidates -> {out}" in result.output
    frame = pl.read_csv(out, infer_schema=False)
    assert frame.height == found.candidates.height
    frame.with_columns(
        pl.when(pl.col("keyword") == "premium payment")
        .then(pl.lit("accept"))
        .otherwise(pl.col("decision"))
        .alias("decision")
    ).write_csv(out)
    result = CliRunner().invoke(cli, ["admit", str(out), "--satellites", str(own), "--by", "ana"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"1 admitted, 0 rejected, {frame.height - 1} pending")
