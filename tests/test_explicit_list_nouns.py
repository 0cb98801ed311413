"""A "search for the keywords X, Y and Z" list: the noun that names the list (keywords,
terms, words, expressions) and its determiner are not an item, in every language."""

from __future__ import annotations

import pytest

from quaestio import parse_question

CASES = [
    (
        "Cherche les mots-clés prime, franchise et résiliation dans le contrat.",
        ["prime", "franchise", "résiliation"],
    ),
    (
        "Cherche les mots clés prime, franchise et résiliation.",
        ["prime", "franchise", "résiliation"],
    ),
    ("Recherche les mots prime, franchise et résiliation.", ["prime", "franchise", "résiliation"]),
    (
        "Recherchez les expressions force majeure, résiliation et préavis dans ce bail.",
        ["force majeure", "résiliation", "préavis"],
    ),
    ("Cherche les termes prime, franchise et résiliation.", ["prime", "franchise", "résiliation"]),
    (
        "Cherche prime, franchise et résiliation dans le contrat.",
        ["prime", "franchise", "résiliation"],
    ),
    (
        "Busca las palabras clave prima, franquicia y rescisión en el contrato.",
        ["prima", "franquicia", "rescisión"],
    ),
    (
        "Busca los términos prima, franquicia y rescisión en el contrato.",
        ["prima", "franquicia", "rescisión"],
    ),
    (
        "Buscar por las expresiones fuerza mayor, preaviso y rescisión.",
        ["fuerza mayor", "preaviso", "rescisión"],
    ),
    ("Busca prima, franquicia y rescisión en el contrato.", ["prima", "franquicia", "rescisión"]),
    (
        "Search for the keywords premium, deductible and termination in the contract.",
        ["premium", "deductible", "termination"],
    ),
    (
        "Look for the terms premium, deductible and termination.",
        ["premium", "deductible", "termination"],
    ),
]


@pytest.mark.parametrize(("question", "expected"), CASES)
def test_the_lists_noun_is_not_an_item(question, expected):
    parsed = parse_question(question)
    explicit = [k.text for k in parsed.keywords if k.source == "explicit"]
    assert explicit == expected
    assert all(k.weight == 1.0 for k in parsed.keywords if k.source == "explicit")
