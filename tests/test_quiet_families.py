"""A step whose cue families can match nothing keeps its defaults after one gate lookup
(`rules.union_rules`): the row must be the one the family-by-family path gives.

Each question is parsed twice, once as shipped and once with the union gates replaced by a
gate that always lets the families run, and the whole rows are compared: questions with and
without hints or scope, in English, French and Spanish, with and without the caller's TOC,
scope, parties and earlier turns.
"""

import pytest

from quaestio import parse_question
from quaestio.analysis import hints, scope
from quaestio.analysis.rules import Rule, language_rules, make_ruleset
from quaestio.satellites.facts import LazyPattern

QUESTIONS = [
    "What is the premium?",
    "What are the exclusions of this contract?",  # a concept's usual section, no cue
    "List the deductibles in the appendix.",
    "What does page 4 say about the limits?",
    "Show me the table of fees on pages 2-5.",
    "What changed in the latest version?",
    "Summarise the termination clause.",
    "Who signed the agreement with Acme Corp in March 2023?",
    "What was the revenue in Q3 2022?",
    "Is Non Owner Car Insurance Cheaper?",
    "Quelles sont les primes ?",
    "Que dit la section 3 sur la résiliation ?",
    "¿Cuál es el deducible en el anexo B?",
    "¿Qué pasó entre enero de 2023 y marzo de 2024?",
    "How many employees did the company have?",
    "What is the capital of France?",
    "Which law governs this agreement?",  # quiet, and a concept's usual section
    "Who pays the deductible?",
    "¿Qué ley rige el contrato?",
    "What did Acme Corp pay in total?",  # a caller's party, named without a cue
    "How much does Spain charge?",  # a jurisdiction concept
]
OPTIONS = [
    {},
    {"toc": ["1. Definitions", "2. Exclusions", "Appendix A - Fees"]},
    {"scope": {"jurisdictions": ["FR"], "date_from": "2022"}},
    {"parties": ["Acme Corp"]},
    {"context": ["What did we pay in 2021 in Spain?"]},
]


def _always(_sats) -> object:
    """A rule set whose one rule (an empty pattern) may match every text."""
    return make_ruleset([Rule("always", "test", None, "*", LazyPattern("", 0), 1.0)])


def _row(question, options):
    row = parse_question(question, **options).model_dump()
    row["provenance"].pop("latency_ms")
    return row


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "none")
def test_the_quiet_path_gives_the_row_the_families_give(monkeypatch, options):
    quiet = {q: _row(q, options) for q in QUESTIONS}
    monkeypatch.setattr(hints, "union_rules", lambda sats, name, parts: _always(sats))
    monkeypatch.setattr(scope, "union_rules", lambda sats, name, parts: _always(sats))
    for question in QUESTIONS:
        assert _row(question, options) == quiet[question], question


def test_most_questions_take_the_quiet_path(monkeypatch):
    # The shortcut is taken at all (else the test above compares the long path with itself).
    quiet_hints, quiet_scope = [], []
    contexts, unscoped = hints._contexts, scope._unscoped

    def spy_contexts(draft, cued=True):
        if not cued:
            quiet_hints.append(draft.original)
        return contexts(draft, cued)

    def spy_unscoped():
        quiet_scope.append(True)
        return unscoped()

    monkeypatch.setattr(hints, "_contexts", spy_contexts)
    monkeypatch.setattr(scope, "_unscoped", spy_unscoped)
    parse_question("What is the premium?")
    assert quiet_hints == ["What is the premium?"] and quiet_scope == [True]
    parse_question("What does page 4 say about the limits in 2023?")
    assert len(quiet_hints) == 1 and len(quiet_scope) == 1


COMPOUND = [
    "What are the exclusions and limitations?",
    "Does this contract include a non-compete clause and, if so, for how long?",
    "Are the premium and the deductible consistent?",
    "What is the premium of plan A and what is the deductible of plan B?",
    "Who is older, Annie Morton or Terry Richardson?",
    "If the policy lapses, what happens to the cash value?",
    "Quelle est la prime et quelle est la franchise ?",
    "¿Cuál es la prima y, en caso afirmativo, cuándo se paga?",
    "Compare the premium of plan A with plan B.",
    "What is the deductible, and when is it due?",
    "What is the premium? What is the deductible?",  # a row of every language (`*`)
    "Quelle est la prime ? Quelle est la franchise ?",
    "¿Cuál es la prima? ¿Cuál es el deducible?",
    "¿Cuáles son las exclusiones y limitaciones?",
    "¿Quién es el asegurado y cuál es su domicilio?",
    "¿Qué firmaron Acme y Globex en 2023?",  # a row the gate cannot read (Spanish)
]


def test_decomposition_rows_behind_their_gate_decide_as_all_rows_do(monkeypatch):
    from quaestio.analysis import decompose

    gated = {q: _row(q, {}) for q in COMPOUND}
    real = decompose.candidates

    def every_structure_rule(draft, ruleset, text):
        if ruleset is decompose._structure_rules(draft.sats, draft.language):
            # each structure row of the language searched, heaviest first, as before the gate
            rows = decompose.cue_rules(draft.sats, "decomposition")
            rows = [
                r
                for r in rows
                if decompose._kind(r) not in ("ref", "") and r.language in (draft.language, "*")
            ]
            return sorted(rows, key=lambda r: -r.weight)
        return real(draft, ruleset, text)

    monkeypatch.setattr(decompose, "candidates", every_structure_rule)
    for question in COMPOUND:
        assert _row(question, {}) == gated[question], question


CLARIFY_AND_EXPLICIT = QUESTIONS + [
    "Tell me more",
    "Compare",
    "Compare them",
    "What about that one?",
    "What changed in the latest one?",
    "And last year?",
    "Tell me about the exclusions",
    "Tell me about Vanuatu",
    "limit",
    "What is the limit?",
    "Is it covered?",
    'Search for "flood damage" in the policy.',
    "Search for flood, fire and theft in the contract.",
    "Look up the terms 'deductible', 'excess' and 'franchise'.",
    "Keywords: premium, renewal; cancellation",
    "What does «clause pénale» mean?",
    "Cherche les mots-clés prime, franchise et résiliation dans le contrat.",
    "Dis-m'en plus",
    "Et l'année dernière ?",
    "Comparer",
    "Que dit « la garantie » ?",
    "Busca las palabras clave prima, deducible y franquicia en el contrato.",
    "¿Y el último?",
    "Compara",
    "¿Qué dice `anexo B` sobre „daños“?",
]


@pytest.mark.parametrize(
    "options", [{}, {"context": ["What is the premium?"]}], ids=["none", "ctx"]
)
def test_clarify_and_explicit_behind_one_gate_decide_as_every_row_does(monkeypatch, options):
    """`clarify` and `explicit_keywords` ask one gate for their two families; with every
    row of both families run instead (no gate), every row stays the same."""
    from quaestio.analysis import clarify, explicit

    gated = {q: _row(q, options) for q in CLARIFY_AND_EXPLICIT}
    real_clarify, real_explicit = clarify.candidates, explicit.candidates

    def every_clarify_row(draft, ruleset, text):
        if ruleset is clarify._rows(draft.sats, draft.language):
            return [
                r
                for f in ("clarification", "deictic")
                for r in language_rules(draft.sats, f, draft.language)
            ]
        return real_clarify(draft, ruleset, text)

    def every_explicit_row(draft, ruleset, text):
        if ruleset is explicit._rows(draft.sats):
            return [
                r
                for f in ("explicit_quote", "explicit_list")
                for r in explicit.cue_rules(draft.sats, f)
            ]
        return real_explicit(draft, ruleset, text)

    monkeypatch.setattr(clarify, "candidates", every_clarify_row)
    monkeypatch.setattr(explicit, "candidates", every_explicit_row)
    reached = set()
    for question in CLARIFY_AND_EXPLICIT:
        row = _row(question, options)
        assert row == gated[question], question
        reached |= {k["rule_id"].split("_")[0] for k in row["keywords"] if k.get("rule_id")}
        reached.add((row["clarification"] or {}).get("ambiguity_reason"))
    # the questions reach both families of each step (an earlier turn resolves a reference)
    both = {"quote", "list"} | (set() if options else {"deictic_reference", "missing_object"})
    assert both <= reached
