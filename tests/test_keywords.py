"""Keyword analysis on the tiny fixture dictionary: explicit, anchors, dictionary, spelling."""

import pytest

from quaestio import parse_question


def _by_source(row, source):
    return [k for k in row.keywords if k.source == source]


def _texts(row, source):
    return [k.text for k in _by_source(row, source)]


def _spans_point_into_the_original(row):
    for k in row.keywords:
        if k.span_start is not None:
            surface = row.original_question[k.span_start : k.span_end]
            assert surface, f"empty span for {k}"
            if k.source in ("explicit", "anchor"):
                assert surface == k.text, f"{k.text!r} vs {surface!r}"


# --- explicit ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question, expected",
    [
        (
            'Search for "force majeure", "termination", "event of default" in this contract',
            ["force majeure", "termination", "event of default"],
        ),
        ("Find “limite d’indemnité” and «plafond»", ["limite d’indemnité", "plafond"]),
        ("Is the 'waiting period' defined? What's the insurer's view?", ["waiting period"]),
        (
            "search for termination, force majeure and event of default in the contract",
            ["termination", "force majeure", "event of default"],
        ),
        ("keywords: premium", ["premium"]),
        (
            "Recherche les termes résiliation, préavis et pénalité dans le contrat",
            ["résiliation", "préavis", "pénalité"],
        ),
        (
            "Busca por rescisión, preaviso y penalización en el contrato",
            ["rescisión", "preaviso", "penalización"],
        ),
        ("I am looking for the premium for my car", []),  # not a list: an ordinary question
    ],
)
def test_explicit_terms_are_verbatim(tiny_sats, question, expected):
    row = parse_question(question, tiny_sats)
    explicit = _by_source(row, "explicit")
    assert [k.text for k in explicit] == expected
    assert all(k.weight == 1.0 and k.concept is None for k in explicit)
    _spans_point_into_the_original(row)


def test_explicit_terms_are_never_expanded_or_corrected(tiny_sats):
    row = parse_question('Search for "premuim", "prime"', tiny_sats)
    assert _texts(row, "explicit") == ["premuim", "prime"]
    assert row.concepts == [] and row.spelling_corrections == []
    assert _by_source(row, "expert_dictionary") == []


# --- anchors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question, anchors",
    [
        ("Does article L131-1 of the insurance code apply here?", ["L131-1"]),
        ("Are we ISO-9001 certified since 2019?", ["ISO-9001", "2019"]),
        ("Which controls map to ID.AM and PR.AC-1 under GDPR?", ["ID.AM", "PR.AC-1", "GDPR"]),
        ("What changed in RC-2024 for order 104257?", ["RC-2024", "104257"]),
        ("Is ISO/IEC 27001:2022 required by clause 4.2?", ["ISO/IEC 27001:2022", "clause 4.2"]),
    ],
)
def test_anchors(tiny_sats, question, anchors):
    row = parse_question(question, tiny_sats)
    assert _texts(row, "anchor") == anchors
    assert all(k.rule_id.startswith("anchors:") for k in _by_source(row, "anchor"))
    _spans_point_into_the_original(row)
    # tokens inside an anchor are not repeated as direct keywords
    assert "131" not in _texts(row, "direct")


# --- dictionary --------------------------------------------------------------------------


def test_multiword_match_expands_to_every_language(tiny_sats):
    row = parse_question("What is the ANNUAL Premium in Germany?", tiny_sats)
    assert row.concepts == ["premium", "country_de"]
    premium = [k for k in row.keywords if k.concept == "premium"]
    assert premium[0].text == "annual premium" and premium[0].span_start == 12
    assert row.original_question[premium[0].span_start : premium[0].span_end] == "ANNUAL Premium"
    assert {k.text for k in premium} == {
        "annual premium",
        "premium",
        "prime",
        "cotisation",
        "prima",
    }
    assert {k.language for k in premium} == {"en", "fr", "es"}
    germany = {k.text for k in row.keywords if k.concept == "country_de"}
    assert germany == {"Germany", "Allemagne", "Alemania", "Deutschland", "DE", "DEU"}
    assert all(k.semantic_group == k.concept for k in row.keywords if k.concept)


def test_accents_and_case_fold_for_matching(tiny_sats):
    row = parse_question("Quelle est la RESILIATION ANTICIPEE ?", tiny_sats)
    assert row.concepts == ["early_termination"]


def test_candidate_rows_do_not_take_part(tiny_sats):
    row = parse_question("¿Cuál es la rescisión anticipada?", tiny_sats)
    assert row.concepts == []


def test_short_codes_match_case_sensitively(tiny_sats):
    assert parse_question("Is the premium different in DE?", tiny_sats).concepts == [
        "premium",
        "country_de",
    ]
    spanish = parse_question("¿Cuál es la prima de la póliza?", tiny_sats)
    assert "country_de" not in spanish.concepts and spanish.concepts == ["premium"]
    shouting = parse_question("WHAT IS THE PREMIUM IN DE", tiny_sats)
    assert shouting.concepts == ["premium"]


def test_longer_keyword_wins_over_a_keyword_inside_it(tiny_sats):
    row = parse_question("What is the prime rate this month?", tiny_sats)
    assert row.concepts == ["prime_rate"] and row.ambiguous_keywords == []


def test_paraphrase_of_a_vocabulary_gap(tiny_sats):
    row = parse_question("What's the cap on what the insurer will pay?", tiny_sats)
    assert row.concepts == ["limit_of_indemnity"]
    assert "plafond de garantie" in [k.text for k in row.keywords]


@pytest.mark.parametrize(
    "question, chosen, method",
    [
        (
            "What prime do I pay the insurer for my insurance cover?",
            "premium",
            "definition_overlap",
        ),
        ("Does the bank change the prime for loans?", "prime_rate", "definition_overlap"),
        ("What is the prime?", "prime_rate", "language"),
        ("Quelle est la prime ?", "premium", "language"),
    ],
)
def test_ambiguous_keyword_resolved_from_definitions_then_language(
    tiny_sats, question, chosen, method
):
    row = parse_question(question, tiny_sats)
    (amb,) = row.ambiguous_keywords
    assert amb.text == "prime" and sorted(amb.candidates) == ["premium", "prime_rate"]
    assert (amb.chosen, amb.method) == (chosen, method)
    assert row.concepts == [chosen]
    assert not any(k.concept and k.concept != chosen for k in row.keywords)


def test_ambiguity_tie_is_deterministic(tiny_sats):
    rows = [parse_question("What is the limit?", tiny_sats) for _ in range(3)]
    assert len({r.ambiguous_keywords[0].chosen for r in rows}) == 1
    assert rows[0].ambiguous_keywords[0].method in ("weight", "alphabetical", "priority")


# --- spelling ----------------------------------------------------------------------------


def test_typos_still_reach_the_concept(tiny_sats):
    row = parse_question("Whats the anual premuim?", tiny_sats)
    assert row.concepts == ["premium"]
    assert row.corrected_question == "Whats the annual premium?"
    fixes = {(c.original, c.corrected, c.vocabulary) for c in row.spelling_corrections}
    assert ("premuim", "premium", "dictionary") in fixes
    match = next(k for k in row.keywords if k.span_start is not None and k.concept)
    assert row.original_question[match.span_start : match.span_end] == "anual premuim"


def test_real_words_and_names_are_not_corrected(tiny_sats):
    # "contract" is one edit from nothing in the tiny dictionary but is a known word;
    # "Primo" is capitalized inside the sentence: a name, not "prime".
    row = parse_question("Does the contract with Primo cover Germanyy?", tiny_sats)
    originals = [c.original for c in row.spelling_corrections]
    assert "contract" not in originals and "Primo" not in originals
    assert "country_de" in row.concepts


def test_spelling_can_be_switched_off_by_a_defaults_row(sat_folder):
    from quaestio import load_satellites

    (sat_folder / "defaults.csv").write_text("key,value\nfuzzy_enabled,false\n")
    row = parse_question("Whats the anual premuim?", load_satellites(sat_folder))
    assert row.concepts == [] and row.spelling_corrections == []


# --- direct and provenance ---------------------------------------------------------------


def test_direct_tokens_drop_stopwords_and_keep_spans(tiny_sats):
    row = parse_question("How can we find the deductible for flood damage?", tiny_sats)
    assert _texts(row, "direct") == ["deductible", "flood", "damage"]
    _spans_point_into_the_original(row)
    assert all(k.weight == 0.5 for k in _by_source(row, "direct"))


def test_each_term_appears_once_from_its_most_telling_source(tiny_sats):
    row = parse_question('premium "premium" 2024 2024', tiny_sats)
    texts = [k.text.lower() for k in row.keywords]
    assert texts.count("premium") == 1 and texts.count("2024") == 1
    assert next(k for k in row.keywords if k.text == "premium").source == "explicit"


def test_provenance(tiny_sats):
    row = parse_question("What is the premium?", tiny_sats)
    assert row.provenance.satellites_version == tiny_sats.version
    assert row.provenance.parser_mode == "rules" and row.provenance.error_code is None
    assert row.provenance.latency_ms > 0


@pytest.mark.parametrize("question", ["¿?", "?!", "…", "ͺ", "What is ͺ?"])
def test_a_keyword_that_folds_to_nothing_costs_no_question(question):
    # "ͺ" folds to the empty string: its key is only the padding, which a question without
    # tokens also is. Such a row must neither crash a question nor match where it is absent.
    import polars as pl

    from quaestio.satellites import load_satellites

    sats = load_satellites(
        extra={
            "concepts": pl.DataFrame(
                {"concept": ["oddity"], "definition": ["odd"], "answer_type": ["text"]}
            ),
            "concept_keywords": pl.DataFrame(
                {"concept": ["oddity"], "language": ["en"], "keyword": ["ͺ"], "weight": [0.9]}
            ),
        }
    )
    row = parse_question(question, sats)
    assert row.provenance.error_code is None
    assert ("oddity" in row.concepts) == ("ͺ" in question)
