"""Share of discovery proposals an honest reviewer accepts, from a hand-labelled sample.

The sample (bench/discovery_labels.csv) was drawn with seed 0 from the candidates of

    .venv/bin/python bench/discovery_scale.py --min-count 2 --out candidates.csv

(FinanceBench evidence pages + business-reports IR chunks, bundled satellites, defaults
min_cluster_size=5, dims=20, min_similarity=0.6): 50 variant rows, labelled accept when the
phrase is a well-formed term that should map to that concept; and 20 new-concept clusters,
labelled accept when the cluster is a coherent concept an analyst of a finance dictionary
would create. Prints the acceptance share overall and by similarity threshold.

    .venv/bin/python bench/discovery_acceptance.py
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

LABELS = Path(__file__).with_name("discovery_labels.csv")


def main() -> None:
    labels = pl.read_csv(LABELS, infer_schema=False)
    for sample, part in labels.group_by("sample", maintain_order=True):
        ok = part.filter(pl.col("label") == "accept").height
        print(f"{sample[0]}: {ok}/{part.height} accepted ({ok / part.height:.0%})")
    variants = labels.filter(sample="variant").with_columns(pl.col("similarity").cast(float))
    for cut in (0.6, 0.7, 0.75, 0.8, 0.85, 0.9):
        kept = variants.filter(pl.col("similarity") >= cut)
        ok = kept.filter(pl.col("label") == "accept").height
        share = f"{ok / kept.height:.0%}" if kept.height else "-"
        print(f"  variants with similarity >= {cut:.2f}: {ok}/{kept.height} accepted ({share})")


if __name__ == "__main__":
    main()
