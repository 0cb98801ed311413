"""Decomposition: the compound prefilter, the five patterns and their sub-questions."""

from __future__ import annotations

import time

import polars as pl
import pytest

from quaestio import load_satellites, parse_question
from quaestio.analysis.decompose import has_compound_indicators
from quaestio.errors import SatelliteError


def _decomposition(question, sats, **options):
    row = parse_question(question, sats, **options)
    d = row.decomposition
    return d.decomposition_pattern.value, d.sub_questions, d.conditional_filter, row


@pytest.mark.parametrize(
    "question, pattern, subs",
    [
        # independent: the "replace *and* by *; also*" test holds
        (
            "What is the premium and the deductible?",
            "independent",
            ["What is the premium?", "What is the deductible?"],
        ),
        (
            "What is the premium and deductible?",
            "independent",
            ["What is the premium?", "What is the deductible?"],
        ),
        (
            "What is the premium, the deductible and the limit?",
            "independent",
            ["What is the premium?", "What is the deductible?", "What is the limit?"],
        ),
        (
            "What is the premium? What is the deductible for water damage?",
            "independent",
            ["What is the premium?", "What is the deductible for water damage?"],
        ),
        (
            "List the exclusions and give the premium.",
            "independent",
            ["List the exclusions.", "Give the premium."],
        ),
        (
            "Quelle est la prime et la franchise ?",
            "independent",
            ["Quelle est la prime ?", "Quelle est la franchise ?"],
        ),
        (
            "Quelle est la prime, et quelle est la franchise ?",
            "independent",
            ["Quelle est la prime ?", "Quelle est la franchise ?"],
        ),
        (
            "¿Cuál es la prima y el deducible?",
            "independent",
            ["¿Cuál es la prima?", "¿Cuál es el deducible?"],
        ),
        (
            "¿Cuál es la prima y cuál es el deducible?",
            "independent",
            ["¿Cuál es la prima?", "¿Cuál es el deducible?"],
        ),
        # comparisons: one question per item, the comparison is left to the caller
        (
            "Which is older, Tarryl Lynn Clark or Michele Marie Bachmann?",
            "independent",
            ["Which is older, Tarryl Lynn Clark?", "Which is older, Michele Marie Bachmann?"],
        ),
        (
            "Are Maro Ajemian and Patricia Field both pianists?",
            "independent",
            ["Are Maro Ajemian pianists?", "Are Patricia Field pianists?"],
        ),
        (
            "What is the difference between Medicare and Medigap?",
            "independent",
            ["What is Medicare?", "What is Medigap?"],
        ),
        (
            "Compare the premium with the deductible",
            "independent",
            ["What is the premium?", "What is the deductible?"],
        ),
        (
            "Quelle est la différence entre la franchise et le plafond ?",
            "independent",
            ["Qu'est-ce que la franchise ?", "Qu'est-ce que le plafond ?"],
        ),
        (
            "¿Cuál es la diferencia entre la prima y el deducible?",
            "independent",
            ["¿Qué es la prima?", "¿Qué es el deducible?"],
        ),
        # sequential: the second needs the answer of the first, in order
        (
            "Who is the insured and what is their address?",
            "sequential",
            ["Who is the insured?", "What is their address?"],
        ),
        (
            "Qui est l'assuré et quelle est son adresse ?",
            "sequential",
            ["Qui est l'assuré ?", "Quelle est son adresse ?"],
        ),
        (
            "¿Quién es el asegurado y cuál es su dirección?",
            "sequential",
            ["¿Quién es el asegurado?", "¿Cuál es su dirección?"],
        ),
        (
            "Find the policy number and then check the renewal date",
            "sequential",
            ["Find the policy number", "Check the renewal date"],
        ),
        (
            "When did Henrietta Ponsonby's father die?",
            "sequential",
            ["Who is Henrietta Ponsonby's father?", "When did #1 die?"],
        ),
        (
            "Which river flows through the city where Gabriel García Márquez was born?",
            "sequential",
            [
                "What is the city where Gabriel García Márquez was born?",
                "Which river flows through #1?",
            ],
        ),
        (
            "What is the most common language in the country where Jamaican English is spoken?",
            "sequential",
            [
                "What is the country where Jamaican English is spoken?",
                "What is the most common language in #1?",
            ],
        ),
        (
            "Quand est mort le père de Victor Hugo ?",
            "sequential",
            ["Qui est le père de Victor Hugo ?", "Quand est mort #1 ?"],
        ),
        (
            "Quelle est la capitale du pays où est né Gabriel García Márquez ?",
            "sequential",
            [
                "Quel est le pays où est né Gabriel García Márquez ?",
                "Quelle est la capitale du #1 ?",
            ],
        ),
        (
            "¿Cuándo murió el padre de Gabriel García Márquez?",
            "sequential",
            ["¿Quién es el padre de Gabriel García Márquez?", "¿Cuándo murió #1?"],
        ),
        (
            "¿Cuál es la capital del país donde nació Gabriel García Márquez?",
            "sequential",
            [
                "¿Cuál es el país donde nació Gabriel García Márquez?",
                "¿Cuál es la capital del #1?",
            ],
        ),
        # unified: two names of one concept of the dictionary
        ("What is the deductible or excess?", "unified", ["What is the deductible or excess?"]),
        (
            "Quelle est la franchise ou le montant de la franchise ?",
            "unified",
            ["Quelle est la franchise ou le montant de la franchise ?"],
        ),
        # single: nothing compound, or a conjunction inside one term of the dictionary
        ("What is the annual premium in Germany?", "single", []),
        ("What is the wear and tear deduction?", "single", []),
        ("Who is the director of Titanic?", "single", []),
        ("Qui est le père de Victor Hugo ?", "single", []),
        ("Who should buy disability insurance and why?", "single", []),
        ("Can I get life insurance if I have diabetes?", "single", []),
        ("If I cancel my policy, what happens to my premium?", "single", []),
        ("Quelle est la franchise pour un dégât des eaux ?", "single", []),
        ("¿Cuáles son los efectos secundarios del medicamento?", "single", []),
    ],
)
def test_pattern_and_sub_questions(bundled, question, pattern, subs):
    got_pattern, got_subs, condition, _ = _decomposition(question, bundled)
    assert (got_pattern, got_subs, condition) == (pattern, subs, None)


@pytest.mark.parametrize(
    "question, condition, subs",
    [
        (
            "If the policy is for commercial property, what is the fire limit?",
            "the policy is for commercial property",
            ["What is the fire limit?"],
        ),
        (
            "What is the deductible, if the contract covers a rental property?",
            "the contract covers a rental property",
            ["What is the deductible?"],
        ),
        (
            "Si le contrat est un contrat commercial, quelle est la franchise ?",
            "le contrat est un contrat commercial",
            ["Quelle est la franchise ?"],
        ),
        (
            "Si la póliza es para propiedad comercial, ¿cuál es el límite de incendio?",
            "la póliza es para propiedad comercial",
            ["¿Cuál es el límite de incendio?"],
        ),
    ],
)
def test_a_condition_becomes_a_filter_and_the_question_remains(bundled, question, condition, subs):
    assert _decomposition(question, bundled)[:3] == ("conditional", subs, condition)


@pytest.mark.parametrize(
    "question",
    [
        "What is the premium and the deductible?",
        "Quelle est la prime et la franchise ?",
        "Which is older, Tarryl Lynn Clark or Michele Marie Bachmann?",
        "When did Henrietta Ponsonby's father die?",
        "Who is the insured and what is their address?",
    ],
)
def test_sub_questions_parse_on_their_own_as_single_questions(bundled, question):
    for sub in _decomposition(question, bundled)[1]:
        if "#1" not in sub:
            assert _decomposition(sub, bundled)[0] == "single", sub


def test_the_deciding_rows_are_recorded(bundled):
    row = _decomposition("What is the premium and the deductible?", bundled)[3]
    assert "cues:decomp_items_en" in row.provenance.rules_fired
    row = _decomposition("What is the deductible or excess?", bundled)[3]
    assert {"cues:decomp_items_shared_det_en", "concepts:deductible"} <= set(
        row.provenance.rules_fired
    )


def test_unified_terms_are_boosted_to_the_strongest_of_them(bundled):
    extra = pl.DataFrame(
        {
            "concept": ["exclusions"],
            "language": ["en"],
            "keyword": ["limitations"],
            "weight": [0.6],
        }
    )
    sats = load_satellites(extra={"concept_keywords": extra})
    pattern, subs, _, row = _decomposition("What are the exclusions and limitations?", sats)
    assert (pattern, subs) == ("unified", ["What are the exclusions and limitations?"])
    spoken = {k.text: k.weight for k in row.keywords if k.span_start is not None}
    assert spoken == {"exclusions": 1.0, "limitations": 1.0}
    # without a row that makes them one (a keyword or a section_pairs row), two questions
    assert _decomposition("What are the exclusions and deductibles?", bundled)[0] == "independent"


def test_a_definition_that_names_both_terms_makes_them_one_concept():
    concept = pl.DataFrame(
        {
            "concept": ["lapse"],
            "definition": ["Lapse or forfeiture: the end of a policy whose premium was not paid."],
        }
    )
    keyword = pl.DataFrame(
        {"concept": ["lapse"], "language": ["en"], "keyword": ["lapse"], "weight": [1.0]}
    )
    sats = load_satellites(extra={"concepts": concept, "concept_keywords": keyword})
    assert _decomposition("What is the lapse or forfeiture?", sats)[:2] == (
        "unified",
        ["What is the lapse or forfeiture?"],
    )


def test_title_case_capitals_are_not_taken_for_names(bundled):
    assert (
        _decomposition("Did Scott Derrickson and Ed Wood work in Hollywood?", bundled)[0]
        == "independent"
    )
    assert (
        _decomposition("Did Scott Derrickson And Ed Wood Work In Hollywood?", bundled)[0]
        == "single"
    )
    # a comparison reads the same in any casing: it does not rest on capitals
    assert (
        _decomposition("Were Scott Derrickson And Ed Wood Of The Same Nationality?", bundled)[0]
        == "independent"
    )


@pytest.mark.parametrize(
    "question, expected",
    [
        ("What is the premium and the deductible?", True),
        ("Which is older, X or Y?", True),
        ("What is the premium? What is the deductible?", True),
        ("If the policy is commercial, what is the limit?", True),
        ("Compare the two policies", True),
        ("Are both policies active?", True),
        ("The premium and deductible are 100 and 200 respectively.", True),
        ("Quelle est la prime et la franchise ?", True),
        ("Si le contrat est commercial, quelle est la franchise ?", True),
        ("¿Cuál es la prima o el deducible?", True),
        ("What is the annual premium?", False),
        ("Quelle est la franchise ?", False),
        ("¿Cuál es el deducible?", False),
        ("", False),
        ("???", False),
    ],
)
def test_the_prefilter(bundled, question, expected):
    assert has_compound_indicators(question, bundled) is expected


def test_the_prefilter_uses_the_bundled_tables_by_default():
    assert has_compound_indicators("premium and deductible") is True


@pytest.mark.parametrize(
    "question",
    [
        "and",
        "and and and?",
        "? ?",
        "If , then ?",
        "¿?",
        "Compare",
        "what is the X and",
        "\u200b and \u200b",
        "A" * 5000 + " and " + "B" * 5000,
        ("premium and " * 400) + "?",
    ],
)
def test_odd_input_gives_a_row_without_error(bundled, question):
    started = time.perf_counter()
    pattern, subs, _, row = _decomposition(question, bundled)
    assert row.provenance.error_code is None
    assert pattern in ("single", "independent", "sequential", "unified", "conditional")
    assert all(isinstance(s, str) and s for s in subs)
    assert time.perf_counter() - started < 5


def test_a_decomposition_row_with_an_unknown_pattern_is_rejected_at_load():
    bad = pl.DataFrame(
        {
            "cue_id": ["decomp_mine"],
            "family": ["decomposition"],
            "target": ["parallel"],
            "language": ["en"],
            "pattern": [r"(?P<split>;)"],
        }
    )
    with pytest.raises(SatelliteError) as caught:
        load_satellites(extra={"cues": bad})
    assert [c["column"] for c in caught.value.failure_cases] == ["target"]


def test_an_analyst_row_adds_a_conjunction(bundled):
    rows = pl.DataFrame(
        {
            "cue_id": ["compound_mine_plus", "decomp_mine_plus"],
            "family": ["compound", "decomposition"],
            "target": [None, "independent"],
            "language": ["en", "en"],
            "weight": [1.0, 0.99],
            "pattern": [
                r"\bplus\b",
                r"^\W*what\s+is\s+(?P<a>the\s+\w+)(?P<drop>\s+plus\s+(?P<b>the\s+\w+))",
            ],
        }
    )
    sats = load_satellites(extra={"cues": rows})
    question = "What is the premium plus the deductible?"
    assert _decomposition(question, bundled)[0] == "single"
    pattern, subs, _, row = _decomposition(question, sats)
    assert (pattern, subs) == ("independent", ["What is the premium?", "What is the deductible?"])
    assert "cues:decomp_mine_plus" in row.provenance.rules_fired


@pytest.mark.parametrize(
    "question",
    [
        "List the annual premiums by year between 2022 and 2024",
        "Liste les primes entre 2022 et 2024",
        "¿Cuáles son las primas entre 2022 y 2024?",
    ],
)
def test_the_two_ends_of_a_range_are_not_two_questions(question):
    from quaestio import parse_question

    assert parse_question(question).decomposition.decomposition_pattern == "single"
