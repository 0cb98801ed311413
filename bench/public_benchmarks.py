"""One table for every public set in ../shared/data: each layer of quaestio against its gold.

    python bench/public_benchmarks.py [--limit N] [--failures N] [--skip confirm,retrieval]

- question_df fields: the gold frames of bench/gold_sets.py (mappings documented there),
  parsed offline with the bundled tables and scored with `quaestio.evaluate.evaluate`, the
  function users run on their own gold files. Rows are split into even/odd halves as in
  the other eval scripts: the rules were developed looking at even rows only, so a gap
  between the halves is over-fitting.
- confirmation: Recognizers-Text EN+ES spans per answer type (overlap precision / recall)
  and the IBAN examples (found whole; one-character corruptions rejected), as in
  bench/eval_confirm_patterns.py, which prints the detail.
- retrieval: FinanceBench evidence pages and business_reports_ir (per report), recall@5 /
  recall@50 / MRR of the main configurations, as in bench/retrieval_quality.py, which
  prints every configuration (and the LLM ones against an endpoint). Slowest part: the
  packaged MiniLM embeds both corpora (a few minutes on 2 cores).
Sets whose files are absent are listed as such.
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
    qdf = parse_questions(
        gold.select("question_id", "question"), sats, id_column="question_id", as_="polars"
    )
    seconds = time.perf_counter() - started
    rows = []
    for half, part in (("even", gold[::2]), ("odd", gold[1::2]), ("all", gold)):
        result = evaluate(qdf, part, satellites=sats, as_="polars")
        for metric in result.metrics.iter_rows(named=True):
            rows.append(
                {
                    "set": name,
                    "half": half,
                    **metric,
                    "q/s": round(gold.height / seconds) if half == "all" else None,
                }
            )
    return rows, evaluate(qdf, gold, satellites=sats, as_="polars").modes


def confirmation_rows() -> list[dict]:
    """Recognizers-Text spans per answer type, and the IBAN examples."""
    import eval_confirm_patterns as ecp

    rows = []
    specs = gold_sets.DATA / "recognizers_text" / "Specs"
    if specs.is_dir():
        for (answer_type, lang, bucket), sc in sorted(ecp.evaluate(specs, None).items()):
            if lang != "all" or bucket != "supported":
                continue
            p = sc.p_overlap / sc.pred if sc.pred else None
            r = sc.r_overlap / sc.gold if sc.gold else None
            rows.append(
                {
                    "set": "Recognizers-Text EN+ES",
                    "field": f"{answer_type} values",
                    "n": sc.gold,
                    "precision": p,
                    "recall": r,
                    "f1": 2 * p * r / (p + r) if p and r else None,
                }
            )
    ibans = gold_sets.DATA / "iban_examples" / "example-ibans"
    if ibans.is_dir():
        found, total, rejected, corrupted = ecp.iban_figures(ibans)
        rows += [
            {
                "set": "IBAN examples",
                "field": "iban found whole",
                "n": total,
                "accuracy": found / total,
            },
            {
                "set": "IBAN examples",
                "field": "iban corruption rejected",
                "n": corrupted,
                "accuracy": rejected / corrupted,
            },
        ]
    return rows


RETRIEVAL_CONFIGS = (
    "bm25 raw question",
    "bm25 keywords: + dictionary",
    "dense (MiniLM-L6)",
    "hybrid RRF",
    "parent-child (hybrid children)",
)


def retrieval_rows(limit: int | None) -> list[dict]:
    """Doc-level recall@5 (as accuracy), recall@50 (as recall) and MRR per configuration."""
    import retrieval_quality as rq

    rows = []
    for name, load, folder in (
        ("financebench", rq.financebench, "financebench"),
        ("business_reports", rq.business_reports, "business_reports_ir"),
    ):
        if not (gold_sets.DATA / folder).is_dir():
            continue
        docs, questions, relevant = load(gold_sets.DATA)
        if limit:
            questions = dict(list(questions.items())[:limit])
            relevant = {q: relevant[q] for q in questions}
        table = rq.run(name, docs, questions, relevant, None)
        table = table[
            table.configuration.isin(RETRIEVAL_CONFIGS) & (table.set != "business_reports")
        ]  # chunk qrels: per report only
        for r in table.to_dict("records"):
            rows.append(
                {
                    "set": r["set"],
                    "field": f"retrieval: {r['configuration']}",
                    "n": r["questions"],
                    "accuracy": r["recall@5"],
                    "recall": r["recall@50"],
                    "mrr": r["mrr"],
                    "q/s": r["q/s"],
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="score only the first N questions of a set")
    parser.add_argument("--failures", type=int, default=3, help="failure modes to print per set")
    parser.add_argument("--skip", default="", help="comma-separated: confirm, retrieval")
    args = parser.parse_args()
    from quaestio import prepare

    skip = set(filter(None, args.skip.split(",")))
    sats = prepare()
    missing = [n for n, (_, path) in gold_sets.BUILDERS.items() if not path.exists()]
    rows, modes = [], {}
    for name, gold in gold_sets.available().items():
        if args.limit:
            gold = gold.head(args.limit)
        set_rows, modes[name] = score(name, gold, sats)
        rows += set_rows
    table = (
        pl.DataFrame(rows)
        .filter(pl.col("half") == "all")
        .join(
            pl.DataFrame(rows)
            .filter(pl.col("half") == "even")
            .select("set", "field", pl.col("accuracy").alias("acc even")),
            on=["set", "field"],
        )
        .join(
            pl.DataFrame(rows)
            .filter(pl.col("half") == "odd")
            .select("set", "field", pl.col("accuracy").alias("acc odd")),
            on=["set", "field"],
        )
        .select(
            "set",
            "field",
            "n",
            "accuracy",
            "acc even",
            "acc odd",
            "precision",
            "recall",
            "f1",
            "q/s",
        )
    )
    extra = ([] if "confirm" in skip else confirmation_rows()) + (
        [] if "retrieval" in skip else retrieval_rows(args.limit)
    )
    if extra:
        table = pl.concat(
            [
                table.with_columns(pl.lit(None, pl.Float64).alias("mrr")),
                pl.DataFrame(extra, schema_overrides={"q/s": pl.Float64}),
            ],
            how="diagonal_relaxed",
        )
    table = table.with_columns(pl.col("q/s").round().cast(pl.Int64))
    with pl.Config(
        tbl_rows=100,
        tbl_hide_dataframe_shape=True,
        float_precision=3,
        tbl_hide_column_data_types=True,
        tbl_width_chars=250,
        tbl_cols=20,
        fmt_str_lengths=45,
    ):
        print(table)
        if "retrieval" not in skip:
            print(
                "retrieval rows: accuracy = recall@5, recall = recall@50 (documents ranked "
                "by their best chunk)"
            )
        for name, frame in modes.items():
            if frame.height and args.failures:
                print(f"\n{name}: top failure modes")
                print(
                    frame.head(args.failures).select("failure_mode", "count", "share", "example")
                )
    if missing:
        print(f"\nnot found in {gold_sets.DATA}: {', '.join(missing)}")


if __name__ == "__main__":
    main()
