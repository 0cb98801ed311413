"""`unified.section_pair` remembers, within one call, whether an item names a concept (the
rows share their sides); it must pick the row that asking every row afresh picks."""

import pytest

from quaestio.analysis import unified
from quaestio.analysis.decompose import decompose
from quaestio.analysis.pipeline import DEFAULT_STEPS, run_steps
from quaestio.satellites import bundled_satellites

ITEMS = [
    ("What are the exclusions and limitations?", ["exclusions", "limitations"]),
    ("What are the terms and conditions?", ["terms", "conditions"]),
    ("List the representations and warranties.", ["representations", "warranties"]),
    ("What are the premium and the deductible?", ["premium", "the deductible"]),
    ("What are the limitations and exclusions of cover?", ["limitations", "exclusions"]),
    ("What are the exclusions and exclusions?", ["exclusions", "exclusions"]),
    ("Show the deductible or excess.", ["deductible", "excess"]),
    (
        "What are the limit of indemnity and the sub-limit?",
        ["limit of indemnity", "the sub-limit"],
    ),
    ("What are the deductibles and co-payments?", ["deductibles", "co-payments"]),
    ("What are the definitions and interpretation?", ["definitions", "interpretation"]),
    ("Quelles sont les modalités et conditions ?", ["modalités", "conditions"]),
    ("Quels sont la franchise et la participation ?", ["la franchise", "la participation"]),
    ("¿Cuáles son los deducibles y copagos?", ["deducibles", "copagos"]),
    ("Quelles sont les exclusions et limitations ?", ["exclusions", "limitations"]),
    ("Quelles sont les conditions générales et particulières ?", ["générales", "particulières"]),
    ("Quelles sont la prime et la franchise ?", ["la prime", "la franchise"]),
    ("¿Cuáles son las exclusiones y limitaciones?", ["exclusiones", "limitaciones"]),
    ("¿Cuáles son los términos y condiciones?", ["términos", "condiciones"]),
    ("¿Cuál es la prima y el deducible?", ["la prima", "el deducible"]),
    (
        "What are the exclusions, limitations and conditions?",
        ["exclusions", "limitations", "conditions"],
    ),
]


def _every_row(draft, spans):
    """The row asking each row, each side, afresh picks (the path without the memo)."""
    stop = unified.stopwords_for(draft.sats, draft.language)
    words = [unified._lemmas(draft, span, stop) for span in spans]
    rows = unified._pair_rows(draft.sats, draft.language) + unified._pair_rows(draft.sats, "*")
    for row in rows:
        sides = []
        for span, item in zip(spans, words):
            side = None
            for name in ("a", "b"):
                value = row[name]
                if value in row["concepts"]:
                    if unified._names(draft, span, value, stop):
                        side = name
                        break
                elif item and item == row[f"{name}_lemmas"]:
                    side = name
                    break
            sides.append(side)
        if None not in sides and {"a", "b"} <= set(sides):
            return row
    return None


@pytest.mark.parametrize("question,items", ITEMS, ids=[q for q, _ in ITEMS])
def test_section_pair_picks_the_row_every_row_picks(question, items):
    sats = bundled_satellites()
    steps = DEFAULT_STEPS[: DEFAULT_STEPS.index(decompose)]
    draft, _ = run_steps(question, sats, steps=steps)
    spans, start = [], 0
    for item in items:
        start = question.index(item, start)
        spans.append((start, start + len(item)))
        start += len(item)
    assert unified.section_pair(draft, spans) == _every_row(draft, spans)


def test_the_questions_reach_pair_rows_and_miss_them():
    sats = bundled_satellites()
    steps = DEFAULT_STEPS[: DEFAULT_STEPS.index(decompose)]
    found = []
    for question, items in ITEMS:
        draft, _ = run_steps(question, sats, steps=steps)
        spans = [(question.index(i), question.index(i) + len(i)) for i in items]
        found.append(unified.section_pair(draft, spans) is not None)
    assert sum(found) >= 4 and not all(found)
