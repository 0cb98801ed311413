"""Parse time against question length: the offline path must stay linear.

    python bench/long_questions.py

Prints the time per character for questions of 1k to 100k characters made of realistic
words (dictionary terms, typos, anchors, quotes), and for the coordination that once made
decomposition quadratic ("what is the premium and what is the limit and ...", 22 s at
115k characters before each clause stopped re-reading the whole question); the last column
is the ratio to the 1k run, which stays near 1.0 when the cost is linear. The
`max_question_chars` default is lifted so that every length is parsed.
"""

from __future__ import annotations

import time

import polars as pl

from quaestio import load_satellites, parse_question, prepare

SENTENCE = (
    'What is the anual premuim in Germany for "water damage" under article L131-1 '
    "and ISO-9001, with a deductible of 500 EUR since 2019? "
)


CLAUSES = " and ".join(f"what is the {w}" for w in ["premium", "limit"] * 2500)


def main() -> None:
    sats = prepare(
        load_satellites(
            extra={
                "defaults": pl.DataFrame(
                    {"key": ["max_question_chars"], "value": ["1000000"], "description": [""]}
                )
            },
            override=True,
        )
    )
    for name, source in (("realistic sentences", SENTENCE), ("coordinated clauses", CLAUSES)):
        print(f"\n{name}")
        run(sats, source)


def run(sats, source: str) -> None:
    print(f"{'chars':>8} {'ms':>9} {'us/char':>8} {'ratio':>6}")
    base = None
    for size in (1_000, 10_000, 100_000):
        text = (source * (size // len(source) + 1))[:size]
        runs = max(1, 100_000 // size)
        start = time.perf_counter()
        for _ in range(runs):
            parse_question(text, sats)
        per_char = (time.perf_counter() - start) / runs / size * 1e6
        base = base or per_char
        print(
            f"{size:>8,} {per_char * size / 1000:>9.1f} {per_char:>8.2f} {per_char / base:>6.2f}"
        )


if __name__ == "__main__":
    main()
