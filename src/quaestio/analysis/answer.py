"""Answer shape (closed set) and answer type (open registry), from `cues` rows and the
matched concepts' default types.

Contract: sets draft.columns["answer_shape"] and draft.columns["answer_type"]; records the
rule ids that decided them with draft.fire(...).

Scoring, the same on both axes. Every cue row of the family (`answer_type`, `answer_shape`)
in the question's language (or `*`) whose pattern matches is one piece of evidence for its
target, worth its `weight`. For the type, each matched concept with a default `answer_type`
is one more piece, worth the weight of the `answer_type_concept` row that matches the
question (0.5 in the bundled rows; without such a row, concept defaults are ignored). The
target with the strongest single piece of evidence wins; ties go to the larger sum of
weights (corroboration), then to the evidence found earliest in the question, then to the
target's name. No evidence: shape `single`, type `text`.

The strongest piece wins, rather than the largest sum, so that weak hints cannot pile up
against the question word: in "who pays the premium?", "who" outweighs both the money verb
and the premium's own type. Weights are therefore a specificity scale read against the
concept default (0.5): 0.9 and above names the type ("what percentage", "what year", "how
many", an e-mail or IBAN asked for); 0.8 to 0.9 is a question word or head noun ("who",
"where", "which company"), stronger than any concept default; below 0.5 is a hint that a
concept's own type overrides ("how much caffeine" is a number, "how much premium" an amount).
Position lives in the patterns: a question word counts at the start of the question, after a
preposition or an indirect-question verb, not inside a relative clause ("the city where...").
A row whose pattern has a `head` group is placed at it, so that between two head nouns the
first named wins ("what character narrates Treasure Island" asks for a person).

Every piece of evidence is recorded in `rules_fired` (`cues:<cue_id>`,
`concepts:<concept>.answer_type`), the winner's first, so a contradiction stays visible.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..satellites import Satellites
from .draft import Draft
from .rules import candidates, language_rules, search

TYPE_FAMILY = "answer_type"
SHAPE_FAMILY = "answer_shape"
CONCEPT_FAMILY = "answer_type_concept"
FALLBACK_TYPE = "text"
FALLBACK_SHAPE = "single"


@dataclass(frozen=True, slots=True)
class Evidence:
    target: str
    weight: float
    start: int
    rule_ids: tuple[str, ...]


def answer_shape_and_type(draft: Draft) -> None:
    """Set `answer_type` and `answer_shape` from the cue rows and the concepts' defaults.

    Args:
        draft: The question so far; reads its text, language, concepts and keywords.
    """
    # Cues read the question as typed: question words are short and common, and a
    # spelling correction of a rare word ("dedica" -> "médica") would invent evidence.
    text = draft.original
    type_evidence = _cue_evidence(draft, TYPE_FAMILY, text)
    type_evidence += _concept_evidence(draft, text)
    draft.columns["answer_type"] = _decide(draft, type_evidence, FALLBACK_TYPE)
    shape_evidence = _cue_evidence(draft, SHAPE_FAMILY, text)
    draft.columns["answer_shape"] = _decide(draft, shape_evidence, FALLBACK_SHAPE)


def _cue_evidence(draft: Draft, family: str, text: str) -> list[Evidence]:
    # Only the question's own language: cues of other languages meet false friends (the
    # Spanish "nombre de" is "name of", the French "nombre de" is "number of").
    found = []
    for rule in candidates(draft, language_rules(draft.sats, family, draft.language), text):
        match = search(draft, rule, text)
        if match is not None:
            found.append(
                Evidence(
                    rule.required_target(),
                    rule.weight,
                    _position(match),
                    (f"cues:{rule.rule_id}",),
                )
            )
    return found


def _position(match) -> int:
    """Where the evidence is: its `head` group when the row names one ("what character
    narrates Treasure Island": the character, named before the island), else the match."""
    if "head" in match.re.groupindex and match.start("head") >= 0:
        return match.start("head")
    return match.start()


def _concept_evidence(draft: Draft, text: str) -> list[Evidence]:
    defaults = draft.sats.cached("concept_answer_types", _concept_answer_types)
    typed = [c for c in draft.concepts if c in defaults]
    if not typed:
        return []
    rules = candidates(draft, language_rules(draft.sats, CONCEPT_FAMILY, draft.language), text)
    weighting = next((r for r in rules if search(draft, r, text)), None)
    if weighting is None:
        return []
    starts: dict[str, int] = {}
    wanted = set(typed)
    for keyword in draft.keywords:
        concept = keyword.get("concept")
        if concept in wanted and keyword["span_start"] is not None:
            starts[concept] = keyword["span_start"]
            wanted.discard(concept)
            if not wanted:
                break
    return [
        Evidence(
            defaults[c],
            weighting.weight,
            starts.get(c, len(text)),
            (f"concepts:{c}.answer_type", f"cues:{weighting.rule_id}"),
        )
        for c in typed
    ]


def _decide(draft: Draft, evidence: list[Evidence], fallback: str) -> str:
    if not evidence:
        return fallback
    best: dict[str, tuple[float, float, int]] = {}
    for piece in evidence:
        top, total, first = best.get(piece.target, (0.0, 0.0, piece.start))
        best[piece.target] = (
            max(top, piece.weight),
            total + piece.weight,
            min(first, piece.start),
        )
    winner = min(best, key=lambda t: (-best[t][0], -round(best[t][1], 6), best[t][2], t))
    for piece in sorted(evidence, key=lambda p: (p.target != winner, p.start)):
        for rule_id in piece.rule_ids:
            draft.fire(rule_id)
    return winner


def _concept_answer_types(sats: Satellites) -> dict[str, str]:
    frame = sats.concepts.select("concept", "answer_type").drop_nulls()
    return dict(frame.iter_rows())
