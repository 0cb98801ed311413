"""Decomposition of compound questions: a cheap prefilter, then rule classification into
single, independent, sequential, unified or conditional, with sub-questions.

Contract: sets decomposition_pattern, sub_questions and conditional_filter in draft.columns.

Every behaviour is a `cues` row. The `compound` rows are indicators only: when none of them
matches (one combined scan), the question is single and nothing else runs. The
`decomposition` rows are tried by weight, highest first, in the question's language; the
first that yields a decomposition decides. What a row does is told by its named groups:

- `condition` + `question`: conditional; the condition text goes to conditional_filter and
  the question that remains is the one sub-question.
- `exists` + `thing` + `question`: "does it include X and, if so, for how long?"; two
  sub-questions, whether X exists (also the conditional_filter), then the follow-up, which
  names X (for a pronoun, or in brackets) so that it reads on its own.
- `split`: the question is cut at every match into clauses, in order; the row's target is
  the pattern, and a `ref` row (a later clause pointing back at the answer of an identity
  question, "who is the insured and what is their address") makes it sequential.
- `inner`: a bridge entity ("the director of X", "the woman who portrayed Y"); the first
  sub-question asks for it (a `decomposition_template` row), the second is the question
  with the entity replaced by `#1`, the reference to the first answer (as in Break's QDMR).
- `a` + `b` (+ `drop`, `wrap`, `head`): coordinated items (`b` may repeat: "A, B and C"); one
  sub-question per item, by replacing `a` with the item and removing every `drop`, or,
  when `wrap` matched, by a template question around each item. When the items name one
  concept (see `quaestio.analysis.unified`) the pattern is unified: one question, both
  terms boosted; so is a pair that one section holds (a `section_pairs` row). Items the
  user quoted, or a conjunction inside one dictionary term ("wear and tear deduction"),
  are not split. With a `head` group (items inside the phrase after it: "the deductible of
  plan A and plan B"), each sub-question keeps the head, and the row gives way when an item
  is a dictionary term of its own ("the premium of the car and the deductible").

A `decomposition` row with none of these groups is never used.

Rows that test capitals (`(?-i:...)`) are skipped for Title Cased questions, where capitals
say nothing about names.
"""

from __future__ import annotations

from collections.abc import Callable

import regex

from ..satellites import Satellites, bundled_satellites
from ..types import DecompositionPattern, KeywordSource
from .draft import Draft
from .hints import section_title
from .language import stopwords_for
from .rules import (
    Rule,
    RuleSet,
    candidates,
    cue_rules,
    finditer,
    language_rules,
    make_ruleset,
    search,
)
from .subquestions import finish, substitute, wrap
from .text import tokenize
from .unified import boost, section_pair, shared_concept

Decision = tuple[str, list[str], "str | None", list[str]]  # pattern, subs, condition, fired


def has_compound_indicators(question: str, satellites: Satellites | None = None) -> bool:
    """Whether a question may be compound: one scan for the `compound` cue rows.

    A prefilter, not a verdict: "and", "or", several question marks, "if … then",
    "compare", "both", "respectively", relative clauses and their French and Spanish
    forms pass; a question with none of them is certainly single.

    Args:
        question: The question as typed.
        satellites: The tables whose `compound` rows to use; the bundled ones when None.

    Returns:
        True when at least one indicator matches (or a rule ran out of time).
    """
    sats = satellites if satellites is not None else bundled_satellites()
    ruleset = cue_rules(sats, "compound")
    timeout = sats.defaults.regex_timeout_ms / 1000
    try:
        return any(
            r.pattern.search(question, timeout=timeout)
            for r in ruleset.candidates(question, timeout)
        )
    except TimeoutError:
        return True


def decompose(draft: Draft) -> None:
    """Fill decomposition_pattern, sub_questions and conditional_filter from the cue rows."""
    text = draft.original
    compound = language_rules(draft.sats, "compound", draft.language)
    if not any(search(draft, rule, text) for rule in candidates(draft, compound, text)):
        return
    case_blind = None  # read at the first row that tests capitals
    # Only the rows the literal gate lets through can match; in weight order, as before.
    for rule in candidates(draft, _structure_rules(draft.sats, draft.language), text):
        if "(?-i:" in rule.pattern.pattern:
            if case_blind is None:
                case_blind = _is_case_blind(draft)
            if case_blind:
                continue
        match = search(draft, rule, text)
        decision = _HANDLERS[_kind(rule)](draft, rule, match) if match else None
        if decision is None:
            continue
        pattern, subs, condition, fired = decision
        draft.columns["decomposition_pattern"] = pattern
        draft.columns["sub_questions"] = subs
        draft.columns["conditional_filter"] = condition
        for rule_id in fired:
            draft.fire(rule_id)
        return


def _kind(rule: Rule) -> str:
    groups = rule.pattern.groupindex
    return next(
        (k for k in ("exists", "condition", "split", "inner", "a", "ref") if k in groups), ""
    )


def _structure_rules(sats: Satellites, language: str | None) -> RuleSet:
    """The decomposition rows of a language (and `*`) that decide a structure, heaviest
    first, behind their gate (which reads the family's: `within`). Per language, so that
    an English question never runs the alternation of the Spanish rows the gate cannot read."""

    def build(s: Satellites) -> RuleSet:
        family = cue_rules(s, "decomposition")
        rules = [r for r in family if _kind(r) not in ("ref", "")]
        every = sorted(rules, key=lambda r: -r.weight)
        return make_ruleset([r for r in every if r.language in (language, "*")], family)

    return sats.cached(f"decomposition_rules:{language}", build)


def _ref_rules(sats: Satellites, language: str | None) -> tuple[Rule, ...]:
    """The `ref` rows of a language (and `*`), in table order."""

    def build(s: Satellites) -> tuple[Rule, ...]:
        rows = cue_rules(s, "decomposition")
        return tuple(r for r in rows if _kind(r) == "ref" and r.language in (language, "*"))

    return sats.cached(f"decomposition_rules:ref:{language}", build)


def _is_case_blind(draft: Draft) -> bool:
    """Title Case or capitals only: function words inside the sentence are capitalized too."""
    if draft.original.isupper():
        return True
    stop = stopwords_for(draft.sats, draft.language)
    inner = [t.text for t in draft.tokens[1:] if t.folded in stop and t.text.isalpha()]
    return len(inner) >= 2 and sum(w[0].isupper() for w in inner) >= 0.6 * len(inner)


def _conditional(draft: Draft, rule: Rule, m: regex.Match) -> Decision | None:
    question = finish(m.group("question"), draft.original)
    if len(tokenize(question)) < 2:
        return None
    return (
        rule.required_target(),
        [question],
        m.group("condition").strip(),
        [f"cues:{rule.rule_id}"],
    )


# The thing asked about stands in for a pronoun of the follow-up ("how long is it?").
_PRONOUN = regex.compile(r"\b(?:it|they|them)\b(?!['’])", regex.I)
_INDEFINITE = regex.compile(r"^(?:a|an|any)\s+", regex.I)


def _if_so(draft: Draft, rule: Rule, m: regex.Match) -> Decision | None:
    """ "Does it include X and, if so, for how long?": whether X exists, then the follow-up
    about X, which carries X so that it reads on its own; the existence is the condition."""
    exists, thing = m.group("exists").strip(), m.group("thing").strip()
    follow = m.group("question").strip()
    if len(tokenize(follow)) < 2 or not thing:
        return None
    if _PRONOUN.search(follow):
        named = _INDEFINITE.sub("the ", thing)
        follow = _PRONOUN.sub(lambda _: named, follow, count=1)
    else:
        follow = f"{follow} ({thing})"
    return (
        rule.required_target(),
        [finish(exists, draft.original), finish(follow, draft.original)],
        exists,
        [f"cues:{rule.rule_id}"],
    )


def _split(draft: Draft, rule: Rule, m: regex.Match) -> Decision | None:
    text, parts, last = draft.original, [], 0
    for cut in finditer(draft, rule, text):
        if draft.is_span_protected(*cut.span("split")):
            continue
        parts.append(text[last : cut.start("split")])
        last = cut.end("split")
    parts.append(text[last:])
    subs = [s for s in (finish(p, text) for p in parts) if len(tokenize(s)) >= 2]
    if len(subs) < 2:
        return None
    fired = [f"cues:{rule.rule_id}"]
    pattern = rule.required_target()
    if pattern == DecompositionPattern.INDEPENDENT.value:
        back = next(
            (r for r in _ref_rules(draft.sats, draft.language) if search(draft, r, text)), None
        )
        if back is not None:
            pattern = back.required_target()
            fired.append(f"cues:{back.rule_id}")
    return pattern, subs, None, fired


def _bridge(draft: Draft, rule: Rule, m: regex.Match) -> Decision | None:
    start, end = m.span("inner")
    rest = draft.original[:start] + "#1" + draft.original[end:]
    # A contraction before the entity ("du", "del") stays in the question that refers to
    # it, and is given to the template, which turns it back into an article.
    lead = m.group("lead") if "lead" in rule.pattern.groupindex else None
    asked = wrap(draft, f"{lead} {m.group('inner')}" if lead else m.group("inner"))
    if asked is None or len(tokenize(rest)) < 3:
        return None
    first, template = asked
    return (
        rule.required_target(),
        [first, finish(rest, draft.original)],
        None,
        [f"cues:{rule.rule_id}", f"cues:{template.rule_id}"],
    )


# A bare number or year as an item ("between 2022 and 2024", "pages 3 and 4") is the end of
# a range or one of a list of values for a single question, not a second question.
_NUMBER_ITEM = regex.compile(r"^\W*\d[\d\s.,/-]*\W*$")


def _numbers_only(m: regex.Match) -> bool:
    return any(_NUMBER_ITEM.match(item) for item in [m.group("a")] + m.captures("b"))


def _items(draft: Draft, rule: Rule, m: regex.Match) -> Decision | None:
    spans = [m.span("a")] + m.spans("b")
    if _quoted(draft, spans) or _inside_term(draft, m) or _numbers_only(m):
        return None
    if "head" in rule.pattern.groupindex and _item_names_a_concept(draft, m):
        return None
    fired = [f"cues:{rule.rule_id}"]
    shared = shared_concept(draft, spans)
    pair = section_pair(draft, spans) if shared is None else None
    if shared is not None or pair is not None:
        boost(draft, spans)
        if pair is not None:
            fired.append(f"section_pairs:{pair['language']}/{pair['a']}/{pair['b']}")
            if not draft.columns.get("toc_section_hint") or draft.options.get(
                "section_from_concept"
            ):
                draft.columns["toc_section_hint"] = section_title(draft, pair["section"])
        else:
            fired.append(f"concepts:{shared}")
        one = finish(draft.original, draft.original)
        return DecompositionPattern.UNIFIED.value, [one], None, fired
    items = [m.group("a")] + m.captures("b")
    if "wrap" in rule.pattern.groupindex and m.start("wrap") >= 0:
        asked = [wrap(draft, item) for item in items]
        wrapped = [a for a in asked if a is not None]
        if len(wrapped) == len(asked):
            fired += dict.fromkeys(f"cues:{t.rule_id}" for _, t in wrapped)
            return rule.required_target(), [q for q, _ in wrapped], None, fired
    subs = [finish(substitute(draft.original, m, item), draft.original) for item in items]
    return rule.required_target(), subs, None, fired


def _item_names_a_concept(draft: Draft, m: regex.Match) -> bool:
    """In "the premium of the car and the deductible", the deductible is a second thing
    asked, not a second owner of the premium: a `head` row (coordination inside the phrase
    after the head) gives way when an item holds a dictionary term the head does not."""
    head = {
        k.get("concept")
        for k in draft.keywords
        if k["span_start"] is not None and m.start("head") <= k["span_start"] < m.end("head")
    }
    return any(
        k.get("concept")
        and k["concept"] not in head
        and k["span_start"] is not None
        and any(s <= k["span_start"] < e for s, e in m.spans("b"))
        for k in draft.keywords
    )


def _quoted(draft: Draft, spans: list[tuple[int, int]]) -> bool:
    """Items the user quoted or listed are search terms, not questions to split."""
    return any(
        k["source"] == KeywordSource.EXPLICIT
        and k["span_start"] is not None
        and any(k["span_start"] < e and s < k["span_end"] for s, e in spans)
        for k in draft.keywords
    )


def _inside_term(draft: Draft, m: regex.Match) -> bool:
    """True when the conjunction is part of one dictionary term ("profit and loss")."""
    a_end, b_start = m.end("a"), m.start("b")
    return any(
        k["span_start"] is not None and k["span_start"] < a_end and k["span_end"] > b_start
        for k in draft.keywords
    )


_HANDLERS: dict[str, Callable[[Draft, Rule, regex.Match], Decision | None]] = {
    "exists": _if_so,
    "condition": _conditional,
    "split": _split,
    "inner": _bridge,
    "a": _items,
}
