"""The funnel is on by default, calibrated on the index's own similarity profile; the windows
re-score; the CLI flags of each setting."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from test_retrieval_fixtures import CORPUS, bm25_index, dense_index

from quaestio.retrieval import Funnel, search
from quaestio.retrieval.calibrate import background
from quaestio.retrieval.windows import window_scores, windows


def test_the_calibrated_threshold_comes_from_unrelated_passage_pairs():
    index = dense_index()
    value = background(index)
    assert value == background(index), "deterministic"
    dense = index.base("dense", "section")
    v = np.asarray(dense.vectors)
    sims = (v @ v.T)[np.triu_indices(len(v), 1)]
    assert np.percentile(sims, 1) <= value <= np.percentile(sims, 60), value
    assert background(bm25_index()) is None, "no vectors, no calibration"


def test_the_default_funnel_drops_off_topic_candidates_and_keeps_the_answer():
    index = dense_index()
    off = search(
        index,
        "Who won the football world cup in 1998?",
        backend="bm25",
        k=10,
        funnel=Funnel(siblings=False),
    )
    raw = search(
        index, "Who won the football world cup in 1998?", backend="bm25", k=10, funnel=Funnel.off()
    )
    assert len(off) < max(len(raw), 1), (len(off), len(raw))
    hits = search(index, "What is the annual premium?", k=5)
    assert hits.breadcrumb.iloc[0].endswith("Schedule"), hits.breadcrumb.tolist()
    assert search(bm25_index(), "What is the annual premium?", backend="bm25", k=3).shape[0] == 3


def test_windows_score_the_best_sentence_window():
    index = dense_index()
    embedder = index.base("dense", "section").embedder
    long = (
        ("The weather was fine. " * 12)
        + "The annual premium is 480 EUR. "
        + ("Birds sang in the trees. " * 12)
    )
    assert len(windows(long)) > 3
    scores = window_scores(embedder, "What is the annual premium?", [long, "Birds sang. " * 20])
    assert scores[0] > scores[1] + 0.2, scores
    hits = search(
        index,
        "What is the annual premium?",
        backend="hybrid",
        k=4,
        funnel=Funnel.off(reranker="windows"),
    )
    ranks = hits.rerank_score.to_numpy(dtype=float)
    assert (np.diff(ranks) <= 1e-9).all()


@pytest.fixture(scope="module")
def cli_index(tmp_path_factory):
    from quaestio.cli import cli

    out = tmp_path_factory.mktemp("cli") / "idx"
    assert CliRunner().invoke(cli, ["index", str(CORPUS), "-o", str(out)]).exit_code == 0
    return out


@pytest.mark.parametrize(
    "flags, fails",
    [
        (["--threshold", "off", "--floor", "0.001", "--cap", "2", "--siblings", "0"], False),
        (["--threshold", "auto", "--reranker", "bi-encoder", "--first-pass", "20"], False),
        (["--threshold", "high"], True),
    ],
)
def test_cli_flags_for_each_funnel_setting(cli_index, flags, fails):
    from quaestio.cli import cli

    runner = CliRunner()
    out = cli_index
    result = runner.invoke(cli, ["search", str(out), "What is the annual premium?", *flags])
    if fails:
        assert result.exit_code != 0 and "not a number, 'auto' or 'off'" in result.output
    else:
        assert result.exit_code == 0, result.output
        assert "Schedule" in result.output
        if "--cap" in flags:
            assert " 3. " not in result.output
