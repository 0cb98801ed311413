"""How often a one-edit typo of a dictionary keyword still reaches its concept.

    python bench/typo_recall.py [--sample 2000]

For single-word `fuzzy` keywords of the bundled dictionary (5+ letters), one random edit of
each kind is made and the word is asked about in a template of its language; recall is the
share of parses that still list the keyword's concept. The clean baseline is the same
template with the keyword spelled right.
"""

from __future__ import annotations

import argparse
import random
import string

TEMPLATES = {
    "en": "What does the contract say about {}?",
    "fr": "Que dit le contrat sur {} ?",
    "es": "¿Qué dice el contrato sobre {}?",
    "de": "Was sagt der Vertrag über {}?",
}


def edit(word: str, kind: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)  # keep the first letter, as most typos do
    if kind == "deletion":
        return word[:i] + word[i + 1 :]
    if kind == "insertion":
        return word[:i] + rng.choice(string.ascii_lowercase) + word[i:]
    if kind == "substitution":
        return (
            word[:i]
            + rng.choice([c for c in string.ascii_lowercase if c != word[i]])
            + word[i + 1 :]
        )
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]  # transposition


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=2000)
    args = parser.parse_args()
    from quaestio import parse_questions, prepare

    sats = prepare()
    import polars as pl

    rows = (
        sats.concept_keywords.filter(
            pl.col("match") == "fuzzy",
            pl.col("status") == "validated",
            pl.col("keyword").str.contains(r"^\p{L}{5,}$"),
            pl.col("language").is_in(list(TEMPLATES)),
        )
        .select("concept", "language", "keyword")
        .rows()
    )
    rng = random.Random(11)
    rows = rng.sample(rows, min(args.sample, len(rows)))
    print(f"{len(rows)} single-word keywords, one edit each (first letter kept)\n")
    print(f"{'edit':<14} {'recall':>7}")
    for kind in ("clean", "deletion", "insertion", "substitution", "transposition"):
        words = [w if kind == "clean" else edit(w.lower(), kind, rng) for _, _, w in rows]
        questions = [TEMPLATES[lang].format(w) for (_, lang, _), w in zip(rows, words)]
        got = parse_questions(questions, sats, as_="polars")["concepts"].to_list()
        hits = sum(concept in found for (concept, _, _), found in zip(rows, got))
        print(f"{kind:<14} {hits / len(rows):>7.1%}")


if __name__ == "__main__":
    main()
