"""`question_df` as values, before and after a change: the public question sets of
../shared/data parsed by a reference commit and by this tree, compared row for row.

    python bench/parse_identity_batch.py                  # reference: HEAD~1
    python bench/parse_identity_batch.py --ref 6d096a9 --limit 5000
    python bench/parse_identity_batch.py --ref 09a0ca5 --mended keywords.is_regex=false

Each side runs in its own process (the reference from `git archive REF src` in a temporary
folder) and writes its table decoded to plain `QUESTION_SCHEMA` values; the comparison is
`to_pylist` equality, every column but `latency_ms`. Also checks that `iter_parse` batches
give the same values as `parse_questions`, and that the pandas and polars frames decode to
the same values. Exits 1 at the first difference, naming the set, row and columns.
`--ignore COLUMN` leaves a column out (`satellites_version`, which hashes the loaded tables,
when the loader writes the same rows in another form). `--mended COLUMN.FIELD=VALUE` names
a nested field a change fixed on purpose: the reference's nulls in it read as VALUE (JSON)
before the comparison, every other value still compared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ../shared/data next to the checkout (a worktree sits one level deeper), or
# QUAESTIO_SHARED_DATA.
DATA = Path(
    os.environ.get("QUAESTIO_SHARED_DATA")
    or next(
        (p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
        ROOT.parent / "shared" / "data",
    )
)


def question_sets(limit: int) -> dict[str, list[str]]:
    def jsonl(path: Path, key: str) -> list[str]:
        with path.open() as fh:
            return [json.loads(line)[key] for line in fh if line.strip()]

    sets = {
        "insuranceqa": jsonl(DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl", "question"),
        "hotpotqa": jsonl(DATA / "hotpotqa" / "hotpot_dev_questions.jsonl", "question"),
        "business_reports_ir": jsonl(DATA / "business_reports_ir" / "queries.jsonl", "text"),
        "financebench": jsonl(
            DATA / "financebench" / "financebench_open_source.jsonl", "question"
        ),
        "clariq": jsonl(DATA / "clariq" / "clariq_requests.jsonl", "initial_request"),
        "trec": [
            line.split(" ", 1)[1].strip()
            for line in (DATA / "trec" / "train_5500.label").read_text("latin-1").splitlines()
            if " " in line
        ],
    }
    xquad = DATA / "multilingual_qa" / "xquad" / "xquad_en_es_questions.jsonl"
    sets["xquad_en"] = jsonl(xquad, "question_en")
    sets["xquad_es"] = jsonl(xquad, "question_es")
    return {name: qs[:limit] for name, qs in sets.items()}


def worker(out: str, limit: int, streaming: bool) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from quaestio import QUESTION_SCHEMA, parse_questions

    sets = question_sets(limit)
    for name, questions in sets.items():
        table = parse_questions(questions, as_="arrow").cast(QUESTION_SCHEMA)
        pq.write_table(table, f"{out}/{name}.parquet")
        if not streaming:
            continue
        from quaestio.analysis.batch import iter_parse

        batches = list(iter_parse(questions, batch_size=777))
        streamed = pa.Table.from_batches(batches).cast(QUESTION_SCHEMA)
        pq.write_table(streamed, f"{out}/{name}.streamed.parquet")
        import polars as pl

        pandas_frame = parse_questions(questions, as_="pandas")
        polars_frame = parse_questions(questions, as_="polars")
        pq.write_table(
            pa.Table.from_pandas(pandas_frame, preserve_index=False).cast(QUESTION_SCHEMA),
            f"{out}/{name}.pandas.parquet",
        )
        assert isinstance(polars_frame, pl.DataFrame)
        pq.write_table(
            polars_frame.to_arrow().cast(QUESTION_SCHEMA), f"{out}/{name}.polars.parquet"
        )


def rows(path: Path, mended: dict[tuple[str, str], object] | None = None) -> list[dict]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    found = table.drop_columns(["latency_ms"]).to_pylist()
    for (column, field), value in (mended or {}).items():
        for row in found:
            for item in row[column]:
                if item[field] is None:
                    item[field] = value
    return found


def mended_fields(specs: list[str]) -> dict[tuple[str, str], object]:
    found: dict[tuple[str, str], object] = {}
    for spec in specs:
        name, _, value = spec.partition("=")
        column, _, field = name.partition(".")
        if not (column and field and value):
            raise SystemExit(f"--mended {spec!r}: expected COLUMN.FIELD=JSON_VALUE")
        found[column, field] = json.loads(value)
    return found


def compare(
    name: str,
    left: list[dict],
    right: list[dict],
    what: str,
    ignored: frozenset[str] = frozenset(),
) -> bool:
    if len(left) != len(right):
        print(f"{name}: {what}: {len(left)} rows against {len(right)}")
        return False
    for n, (a, b) in enumerate(zip(left, right)):
        if ignored:
            a = {c: v for c, v in a.items() if c not in ignored}
            b = {c: v for c, v in b.items() if c not in ignored}
        if a != b:
            print(f"{name}: {what}: row {n} differs in {[c for c in a if a[c] != b.get(c)]}")
            return False
    return True


def export(ref: str, folder: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="HEAD~1")
    parser.add_argument("--limit", type=int, default=100_000, help="questions per set")
    parser.add_argument("--worker")
    parser.add_argument("--streaming", action="store_true")
    parser.add_argument(
        "--mended",
        action="append",
        default=[],
        metavar="COLUMN.FIELD=VALUE",
        help="a nested field fixed on purpose: the reference's nulls in it read as VALUE",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="COLUMN",
        help="a column left out of the comparison (satellites_version, when the loader "
        "writes the same rows in another form)",
    )
    args = parser.parse_args()
    mended = mended_fields(args.mended)
    if args.worker:
        worker(args.worker, args.limit, args.streaming)
        return
    with tempfile.TemporaryDirectory() as tmp:
        base, ours = Path(tmp) / "ref", Path(tmp) / "ours"
        base.mkdir()
        ours.mkdir()
        ref_src = export(args.ref, Path(tmp) / "tree")
        for folder, src, extra in ((base, ref_src, []), (ours, ROOT / "src", ["--streaming"])):
            subprocess.run(
                [sys.executable, __file__, "--worker", str(folder), "--limit", str(args.limit)]
                + extra,
                check=True,
                env={**os.environ, "PYTHONPATH": str(src), "QUAESTIO_SHARED_DATA": str(DATA)},
            )
        ok = True
        for name in question_sets(args.limit):
            before = rows(base / f"{name}.parquet", mended)
            after = rows(ours / f"{name}.parquet")
            same = compare(name, before, after, f"{args.ref} vs this tree", frozenset(args.ignore))
            for form in ("streamed", "pandas", "polars"):
                same &= compare(name, after, rows(ours / f"{name}.{form}.parquet"), form)
            print(f"{name:>20}: {len(before):>6} rows {'identical' if same else 'DIFFER'}")
            ok &= same
    print("question_df identical as values" if ok else "question_df DIFFERS")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
