"""One table for every public set in ../shared/data: quaestio's fields against their gold.

    python bench/public_benchmarks.py [--limit N] [--failures N]

The gold frames come from bench/gold_sets.py (mappings documented there); each set is parsed
offline with the bundled tables and scored with `quaestio.evaluate.evaluate`, the same
function users run on their own gold files. Sets whose files are absent are listed as such.
Rows are split into even/odd halves as in the other eval scripts: the rules were developed
looking at even rows only, so a gap between the halves is over-fitting.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).parent))
import gold_sets  # noqa: E402


def score(name: str, gold: pl.DataFrame, sats) -> tuple[list[dict], pl.DataFrame]:
    from quaestio import parse_questions
    from quaestio.evaluate import evaluate

    started = time.perf_counter()
    qdf = parse_questions(gold.select("question_id", "question"), sats,
                          id_column="question_id", as_="polars")
    seconds = time.perf_counter() - started
    rows = []
    for half, part in (("even", gold[::2]), ("odd", gold[1::2]), ("all", gold)):
        result = evaluate(qdf, part, satellites=sats, as_="polars")
        for metric in result.metrics.iter_rows(named=True):
            rows.append({"set": name, "half": half, **metric,
                         "q/s": round(gold.height / seconds) if half == "all" else None})
    return rows, evaluate(qdf, gold, satellites=sats, as_="polars").modes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="score only the first N questions of a set")
    parser.add_argument("--failures", type=int, default=3,
                        help="failure modes to print per set")
    args = parser.parse_args()
    from quaestio import prepare

    sats = prepare()
    missing = [n for n, (_, path) in gold_sets.BUILDERS.items() if not path.exists()]
    rows, modes = [], {}
    for name, gold in gold_sets.available().items():
        if args.limit:
            gold = gold.head(args.limit)
        set_rows, modes[name] = score(name, gold, sats)
        rows += set_rows
    table = (pl.DataFrame(rows).filter(pl.col("half") == "all")
             .join(pl.DataFrame(rows).filter(pl.col("half") == "even")
                   .select("set", "field", pl.col("accuracy").alias("acc even")),
                   on=["set", "field"])
             .join(pl.DataFrame(rows).filter(pl.col("half") == "odd")
                   .select("set", "field", pl.col("accuracy").alias("acc odd")),
                   on=["set", "field"])
             .select("set", "field", "n", "accuracy", "acc even", "acc odd", "precision",
                     "recall", "f1", "q/s"))
    with pl.Config(tbl_rows=100, tbl_hide_dataframe_shape=True, float_precision=3,
                   tbl_hide_column_data_types=True, tbl_width_chars=200, tbl_cols=20):
        print(table)
        for name, frame in modes.items():
            if frame.height and args.failures:
                print(f"\n{name}: top failure modes")
                print(frame.head(args.failures).select("failure_mode", "count", "share",
                                                       "example"))
    if missing:
        print(f"\nnot found in {gold_sets.DATA}: {', '.join(missing)}")


if __name__ == "__main__":
    main()
