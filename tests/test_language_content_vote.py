"""Language detection when function words are shared: a close stopword vote is settled by
the question's content words, through each language's general word list."""

import shutil
from pathlib import Path

import pytest

import quaestio
from quaestio import load_satellites, parse_question

BUNDLED = Path(quaestio.__file__).parent / "satellites" / "data"


@pytest.mark.parametrize(
    "question, language",
    [
        # English in title case: "car", "on" and "non" are French function words.
        ("Is Non Owner Car Insurance Cheaper?", "en"),
        ("Is Car Insurance Higher On A Red Car?", "en"),
        ("Does Car Insurance Pay On A Stolen Car?", "en"),
        # French whose function words are Spanish or English ones too ("en", "a", "de").
        ("Le taux a doublé en deux ans.", "fr"),
        ("La prime a augmenté en trois ans.", "fr"),
        ("La section 4.22 décrit les exclusions.", "fr"),
        ("Le pourcentage reste inconnu.", "fr"),
        # Spanish that shares "me" and "a" with English.
        ("¿Qué pasará con la prima a fin de mes?", "es"),
        ("Me iré en dos minutos", "es"),
    ],
)
def test_a_close_vote_goes_to_the_language_of_the_content_words(question, language):
    assert parse_question(question).language == language


@pytest.mark.parametrize(
    "question",
    [
        "What administration did Ludwig Mies van der Rohe design?",
        "Which buildings did Ludwig Mies van der Rohe plan in Chicago?",
    ],
)
def test_names_inside_a_sentence_do_not_vote(question):
    # "van der" leans German; the names after it would lean further, but a capital inside
    # running text marks a name, not a word of the question's language.
    assert parse_question(question).language == "en"


@pytest.mark.parametrize(
    "question, language",
    [
        ("What 's a `` coup de poing '' to a French boxer ?", "en"),
        ('What is a "coup de main" in a contract?', "en"),
        ("Que veut dire « due diligence » dans un contrat ?", "fr"),
        ('¿Qué significa "due diligence" en un contrato?', "es"),
    ],
)
def test_quoted_words_are_a_mention_and_do_not_vote(question, language):
    assert parse_question(question).language == language


def test_an_uncontested_question_keeps_its_stopword_vote():
    assert parse_question("Quelles sont les exclusions du contrat ?").language == "fr"
    assert parse_question("What is the premium of the policy?").language == "en"


def test_the_word_ratio_is_a_defaults_row(tmp_path):
    folder = tmp_path / "sats"
    shutil.copytree(BUNDLED, folder)
    defaults = folder / "defaults.csv"
    rows = [
        line
        for line in defaults.read_text(encoding="utf-8").splitlines()
        if not line.startswith("language_word_ratio,")
    ]
    rows.append("language_word_ratio,2.5,an analyst's own threshold")
    defaults.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert load_satellites(folder).defaults.language_word_ratio == 2.5
    # A word absent from the other contender's list votes whatever the ratio.
    assert (
        parse_question("Is Non Owner Car Insurance Cheaper?", load_satellites(folder)).language
        == "en"
    )
