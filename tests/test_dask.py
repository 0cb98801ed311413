"""quaestio.dask on a real distributed.LocalCluster: two worker processes, TCP on loopback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from conftest import SHARED_DATA

dd = pytest.importorskip(
    "dask.dataframe", reason="the dask extra is not installed: pip install 'quaestio[dask]'"
)
distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("QUAESTIO_SHARED_DATA", SHARED_DATA))
INSURANCEQA = DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
VARYING = ["latency_ms"]  # wall-clock time of each parse: the only column runs may differ in


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=40,
    )
    with cluster, distributed.Client(cluster) as c:
        yield c


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal row for row (Arrow equality: fast on nested columns), or the first row that is not."""
    import pyarrow as pa

    cols = [c for c in b.columns if c not in VARYING]
    left, right = (pa.Table.from_pandas(f[cols], preserve_index=False) for f in (a, b))
    assert left.schema == right.schema
    if not left.equals(right):
        assert left.num_rows == right.num_rows
        rows = zip(left.to_pylist(), right.to_pylist())
        n, (x, y) = next((n, pair) for n, pair in enumerate(rows) if pair[0] != pair[1])
        raise AssertionError(f"row {n} differs: {[c for c in cols if x[c] != y[c]]}")


def test_ten_thousand_real_questions_row_for_row(client):
    from quaestio import parse_questions
    from quaestio.dask import parse_questions as dask_parse

    if not INSURANCEQA.exists():
        pytest.skip(
            f"{INSURANCEQA} not found: the public InsuranceQA questions of "
            f"../shared/data (set QUAESTIO_SHARED_DATA to their folder)"
        )
    questions = [json.loads(line)["question"] for line in INSURANCEQA.open()][:10_000]
    assert len(questions) == 10_000
    frame = pd.DataFrame({"question": questions})
    lazy = dask_parse(dd.from_pandas(frame, npartitions=4), client=client)
    running = client.compute(lazy)  # the workers parse while this process does the same
    expected = parse_questions(questions)
    assert list(lazy._meta.columns) == list(expected.columns)
    assert lazy._meta.dtypes.astype(str).tolist() == expected.dtypes.astype(str).tolist()
    got = running.result()
    assert got.index.tolist() == frame.index.tolist()  # one row per input, in order
    assert got.question_id.tolist() == [f"q{i}" for i in range(10_000)]
    _same(got, expected)


def test_state_reaches_each_worker_once(client):
    from quaestio.dask import parse_questions as dask_parse

    frame = dd.from_pandas(
        pd.DataFrame(
            {"question": ["What is the premium?"] * 6, "id": [f"a{i}" for i in range(6)]}
        ),
        npartitions=3,
    )
    for _ in range(3):
        out = dask_parse(frame, client=client, id_column="id").compute()
    assert out.question_id.tolist() == [f"a{i}" for i in range(6)]
    keys = client.run(
        lambda dask_worker: sorted(k for k in dask_worker.plugins if k.startswith("quaestio-"))
    )
    assert len(keys) == 2 and all(len(v) == 1 for v in keys.values()), keys


def test_a_worker_with_other_satellites_refuses_the_state(client):
    from quaestio.dask.plugin import QuaestioState, WorkerStateError, install
    from quaestio.satellites import bundled_satellites

    state = QuaestioState(bundled_satellites())
    state.expected["satellites"] = "0" * 12  # as if the client had other tables
    state.key += "-tampered"
    with pytest.raises(WorkerStateError, match="satellites"):
        install(state, client)


def test_failing_partition_is_retried_then_named(client):
    from quaestio.dask import PartitionFailed
    from quaestio.dask import parse_questions as dask_parse

    rows = ["What is the premium?"] * 7 + [None]  # the last partition holds the bad row
    frame = dd.from_pandas(pd.DataFrame({"question": rows}), npartitions=4)
    with pytest.raises(PartitionFailed, match="partition 3 failed after 1 attempt") as info:
        dask_parse(frame, client=client, errors="raise").compute()  # bad data: not retried
    assert info.value.partition == 3 and "row 1, column 'question'" in info.value.cause
    collected = dask_parse(frame, client=client).compute()  # errors="collect": no row lost
    assert len(collected) == 8 and collected.error_code.iloc[-1] == "missing_question"


def test_search_and_confirm_match_in_process(client, tmp_path):
    pytest.importorskip("bm25s")
    from quaestio import confirm, parse_questions
    from quaestio.dask import confirm as dask_confirm
    from quaestio.dask import parse_questions as dask_parse
    from quaestio.dask import search as dask_search
    from quaestio.retrieval import HITS_SCHEMA, build_index, search

    gold = pd.read_csv(ROOT / "examples" / "retrieval_gold.csv")
    build_index(ROOT / "examples" / "corpus", tmp_path / "index", embedding_model=None)
    qdf = dask_parse(
        dd.from_pandas(gold[["id", "question"]], npartitions=3), client=client, id_column="id"
    )
    hits = dask_search(str(tmp_path / "index"), qdf, client=client, k=5)
    assert list(hits._meta.columns) == HITS_SCHEMA.names
    answers, verdicts = dask_confirm(qdf, hits, client=client)
    got_hits, got_verdicts = hits.compute(), verdicts.compute()
    local_q = parse_questions(gold, id_column="id")
    local_hits = search(tmp_path / "index", local_q, backend="bm25", k=5)
    _same(got_hits, local_hits)
    _same(got_verdicts, confirm(local_q, local_hits).verdicts)
    assert got_verdicts.question_id.tolist() == gold.id.tolist()


def test_transient_failures_are_retried():
    from quaestio.dask import PartitionFailed
    from quaestio.dask.batches import _attempts

    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionError("worker lost its database connection")
        return "done"

    assert _attempts("search", 5, 2, flaky) == "done" and len(calls) == 3
    calls.clear()
    with pytest.raises(PartitionFailed, match="search: partition 5 failed after 2 attempt"):
        _attempts("search", 5, 1, flaky)


def test_cli_parse_and_search_on_a_running_scheduler(client, tmp_path):
    pytest.importorskip("bm25s")
    import pyarrow.parquet as pq
    from click.testing import CliRunner

    from quaestio.cli import cli
    from quaestio.retrieval import build_index

    inputs = tmp_path / "in"
    inputs.mkdir()
    rows = [
        "What is the annual premium?",
        "What is the deductible?",
        "",
        "¿Cuál es la prima anual?",
        "Who are the parties?",
    ]
    pd.DataFrame({"question": rows[:3]}).to_csv(inputs / "a.csv", index=False)
    pd.DataFrame({"question": rows[3:]}).to_csv(inputs / "b.csv", index=False)
    address = client.scheduler.address
    runner = CliRunner()
    parsed = runner.invoke(
        cli,
        [
            "dask",
            "parse",
            str(inputs),
            "-o",
            str(tmp_path / "q"),
            "--scheduler",
            address,
            "--quiet",
        ],
    )
    assert parsed.exit_code == 0, parsed.output
    table = pq.read_table(tmp_path / "q")
    assert table.column("question_id").to_pylist() == [f"q{i}" for i in range(5)]
    assert table.column("error_code").to_pylist()[2] == "empty_question"  # a row, not lost
    build_index(ROOT / "examples" / "corpus", tmp_path / "index", embedding_model=None)
    searched = runner.invoke(
        cli,
        [
            "dask",
            "search",
            str(tmp_path / "index"),
            str(tmp_path / "q"),
            "-o",
            str(tmp_path / "hits"),
            "--scheduler",
            address,
            "-k",
            "2",
            "--quiet",
        ],
    )
    assert searched.exit_code == 0, searched.output
    hits = pq.read_table(tmp_path / "hits")
    assert set(hits.column("question_id").to_pylist()) <= {f"q{i}" for i in range(5)}
    assert hits.num_rows > 0
    empty = runner.invoke(
        cli, ["dask", "parse", str(tmp_path / "nothing*"), "-o", "x", "--scheduler", address]
    )
    assert empty.exit_code != 0 and "no .parquet, .csv or .jsonl files" in empty.output
