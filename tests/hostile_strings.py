"""A generator of hostile questions, shared by `tests/test_fuzz.py` (hypothesis draws from
the same pieces) and `bench/fuzz_parse.py` (100,000 of them).

Each kind is what breaks text pipelines: lone surrogates (no UTF-8 file or Arrow column
holds them), control and format characters, bidi marks, stacks of combining marks,
presentation forms whose NFKC holds spaces, long digit runs, nested and unclosed quotes,
list markers by the hundred, emoji sequences, arbitrary code points, and 100k characters.
"""

from __future__ import annotations

import random
import sys
import unicodedata

WORDS = (
    "what is the premium limit of indemnity deductible in Germany France Spain policy "
    "contract page section article L131-1 ISO-9001 GDPR 2024 EUR USD and or if then "
    "quelle est la prime plafond de garantie cuál es el límite search for keywords"
).split()
NFKC_SPACE = [
    ch
    for ch in map(chr, range(sys.maxunicode + 1))
    if not ch.isspace() and " " in unicodedata.normalize("NFKC", ch)
]
PIECES = {
    "surrogate": ["\ud800", "\udfff", "\udc80", "\ud83d", "\ud83d\ude00"],
    "control": [chr(c) for c in (*range(0, 32), 127, *range(0x80, 0xA0))],
    "bidi": [
        "\u200e",
        "\u200f",
        "\u202a",
        "\u202b",
        "\u202c",
        "\u202d",
        "\u202e",
        "\u2066",
        "\u2067",
        "\u2068",
        "\u2069",
        "\u061c",
        "\ufeff",
        "\u200b",
        "\u200d",
        "\u2060",
    ],
    "combining": ["\u0301", "\u0308", "\u0327", "\u0336", "\u20dd", "\u0345", "\u1dc0"],
    "presentation": NFKC_SPACE
    + [
        "\ufb01",
        "\ufb03",
        "\ufdfd",
        "\uff21",
        "\u2460",
        "\u3392",
        "\u33a1",
        "\u2166",
        "\ufe35",
        "\uff10",
    ],
    "quote": ['"', "'", "«", "»", "“", "”", "‘", "’", "„", "‹", "›", "`", "「", "」"],
    "punct": [
        ",",
        ";",
        ":",
        ".",
        "?",
        "!",
        "-",
        "/",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "\\",
        "|",
        "*",
        "+",
        "$",
        "€",
        "%",
        "#",
        "&",
        "\n",
        "\t",
        "\r",
    ],
    "emoji": ["🙂", "🇩🇪", "👩‍👩‍👧", "🏳️‍🌈", "\u2764\ufe0f"],
}
KINDS = (
    "words",
    "surrogate",
    "control",
    "bidi",
    "combining",
    "presentation",
    "quote",
    "digits",
    "markers",
    "codepoints",
    "mixed",
    "blank",
)


def hostile(rng: random.Random, kind: str | None = None, length: int | None = None) -> str:
    """One hostile question of `kind` (random when None), about `length` characters."""
    kind = kind or rng.choice(KINDS)
    length = length or rng.choice((5, 20, 60, 200, 1000))
    if kind == "blank":
        return rng.choice(["", " ", "\t\n", "\u200b", "\u3000 \u00a0"])
    if kind == "digits":
        run = "".join(rng.choice("0123456789") for _ in range(rng.choice((50, 500, 5000))))
        return (
            rng.choice(["What is the premium for ", "page ", "", "1."])
            + run
            + rng.choice(["?", " EUR", "%", ".5", "-" + run[:40]])
        )
    if kind == "markers":
        marker = rng.choice(["keywords: ", "search for ", "mots-clés : ", "palabras clave: "])
        return " ".join(
            marker + ", ".join(rng.sample(WORDS, 3)) + rng.choice([".", ";", ""])
            for _ in range(max(1, length // 40))
        )
    if kind == "codepoints":
        return "".join(chr(rng.randrange(sys.maxunicode + 1)) for _ in range(length // 4 + 1))
    out: list[str] = []
    while sum(map(len, out)) < length:
        if kind == "words" or rng.random() < 0.5:
            out.append(rng.choice(WORDS) + " ")
        else:
            pool = PIECES[kind] if kind in PIECES else PIECES[rng.choice(list(PIECES))]
            out.append("".join(rng.choice(pool) for _ in range(rng.choice((1, 2, 8)))))
        if kind == "quote" and rng.random() < 0.2:  # nested quotes, some never closed
            q = rng.choice(PIECES["quote"])
            out.append(q + rng.choice(WORDS) + rng.choice(PIECES["quote"]) + q)
    return "".join(out)


def long_question(rng: random.Random, size: int = 100_000) -> str:
    """A question of `size` characters mixing every kind, as one pasted document would."""
    parts, total = [], 0
    while total < size:
        part = hostile(rng, length=rng.choice((200, 1000, 5000)))
        parts.append(part)
        total += len(part)
    return "".join(parts)[:size]


def hostile_batch(n: int, seed: int = 0, long: int = 0) -> list:
    """`n` hostile questions and `long` 100k-character ones, plus a few non-strings."""
    rng = random.Random(seed)
    batch: list = [hostile(rng) for _ in range(n)]
    batch += [long_question(rng) for _ in range(long)]
    for i in range(0, len(batch), 997):  # the odd None, number or bytes among them
        batch[i] = rng.choice([None, 42, 3.5, float("nan"), b"premium", ["premium"]])
    return batch
