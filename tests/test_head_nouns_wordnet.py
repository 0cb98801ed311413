"""English person head nouns derived from WordNet 3.0 (`head_nouns.wordnet.csv`, kind
`person_wordnet`), read by the English person cues at their head-noun position only.

The nouns come from a rule over WordNet (scripts/head_nouns_from_wordnet.py), not from the
questions of a test set; the wordings here are new ones. A noun of that list is trusted as
the head only when it is written in lower case: capitalised inside a sentence it may be a
name ("Letterman"), and in a title-case question ("What Is Guardian Life Insurance?") a
modifier cannot be told from the head.
"""

import polars as pl
import pytest

from quaestio import load_satellites, parse_question
from quaestio.analysis.answer import answer_shape_and_type
from quaestio.analysis.pipeline import DEFAULT_STEPS

STEPS = DEFAULT_STEPS[: DEFAULT_STEPS.index(answer_shape_and_type) + 1]


def _type(question, sats):
    return parse_question(question, sats, steps=STEPS).answer_type


@pytest.fixture(scope="module")
def sats():
    return load_satellites()


@pytest.mark.parametrize(
    "question",
    [
        "What plumber fixed the leak in the Senate basement?",
        "Which bartender invented the mojito?",
        "What janitor found the lost painting?",
        "Name the apprentice who finished the cathedral.",
        "Which of these pilgrims reached Santiago first?",
        "What was the name of the shepherd in the legend?",
        "Tell me the janitor who found the lost painting.",
    ],
)
def test_a_wordnet_person_noun_at_the_head_asks_for_a_person(sats, question):
    assert _type(question, sats) == "person"


def test_the_rows_are_what_finds_them(tmp_path):
    # The same questions with the hand-written head nouns only (and one WordNet row, so that
    # the cues' reference is filled): not read as asking for a person, so the test above
    # does not pass by an older cue.
    bundled = load_satellites().tables["head_nouns"]
    hand = bundled.filter(pl.col("kind") != "person_wordnet")
    filler = pl.DataFrame({"language": ["en"], "kind": ["person_wordnet"], "noun": ["zzz"]})
    pl.concat([hand.select("language", "kind", "noun"), filler]).write_csv(
        tmp_path / "head_nouns.csv"
    )
    reduced = load_satellites(tmp_path)
    assert _type("What plumber fixed the leak in the Senate basement?", reduced) == "text"
    assert _type("Which bartender invented the mojito?", reduced) == "text"


@pytest.mark.parametrize(
    "question",
    [
        "What Is Guardian Life Insurance?",  # title case: "Guardian" is a modifier
        "What Are Riders In Life Insurance?",
        "What is the name of David Stranger's boat?",  # capitalised inside a sentence: a name
        "WHAT PLUMBING CODE APPLIES?",
    ],
)
def test_a_capitalised_wordnet_noun_is_not_trusted_as_the_head(sats, question):
    assert _type(question, sats) != "person"


@pytest.mark.parametrize(
    "question",
    [
        "What president signed the treaty?",  # a hand-written row: any case
        "What President signed the treaty?",
    ],
)
def test_hand_written_person_nouns_keep_reading_in_any_case(sats, question):
    assert _type(question, sats) == "person"


def test_hand_written_rows_win_over_wordnet(sats):
    # An English noun the analysts filed under any kind (a work, a place) is theirs.
    nouns = sats.tables["head_nouns"]
    english = nouns.filter(pl.col("language").is_in(["en", "*"]))
    hand = set(english.filter(pl.col("kind") != "person_wordnet")["noun"].to_list())
    derived = set(nouns.filter(pl.col("kind") == "person_wordnet")["noun"].to_list())
    assert derived and not hand & derived


def test_the_rows_carry_the_wordnet_notice(sats):
    nouns = sats.tables["head_nouns"].filter(pl.col("kind") == "person_wordnet")
    assert any(
        "WordNet 3.0 Copyright 2006 by Princeton University" in (d or "")
        for d in nouns["description"].to_list()
    )
