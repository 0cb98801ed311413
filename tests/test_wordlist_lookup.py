"""The word list answers the same whether it looks words up by bisection or by its set."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quaestio.analysis.spelling import _edits1, _from_language
from quaestio.analysis.wordlist import Vocabulary, language_vocabulary

WORDS = sorted({"claim", "claims", "cover", "covers", "insurance", "insurer", "policy", "premium"})


def _vocab() -> Vocabulary:
    return Vocabulary(WORDS, [10 * (i + 1) for i in range(len(WORDS))], {"insurer": "Insurer"})


@settings(max_examples=200, deadline=None)
@given(st.sets(st.sampled_from(WORDS) | st.text("acilmnoprsuvy", max_size=9), max_size=30))
def test_among_is_the_words_bisection_finds(words):
    vocab = _vocab()
    by_bisection = {w for w in words if w in vocab}  # before the set exists
    assert vocab.among(set(words)) == by_bisection
    assert {w for w in words if w in vocab} == by_bisection  # after: through the set


def test_membership_before_and_after_the_set_is_built():
    vocab = _vocab()
    probes = ["claim", "claimz", "", "premium", "premiums", "Insurer", "insurer"]
    before = [p in vocab for p in probes]
    vocab.among({"x"})
    assert [p in vocab for p in probes] == before == [True, False, False, True, False, False, True]
    assert 3 not in vocab  # not a string: not a word, either way


def test_language_fix_finds_the_one_edit_word():
    vocab = _vocab()
    assert "premium" in _edits1("premiun")
    assert _from_language("premiun", vocab, long_length=12) == "premium"
    assert _from_language("insurar", vocab, long_length=12) == "Insurer"  # its surface
    assert _from_language("zzzzzzz", vocab, long_length=12) is None


def test_english_list_agrees_with_itself():
    vocab = language_vocabulary("en")
    assert len(vocab) > 100_000  # pyspellchecker's English list, a dependency
    edits = _edits1("insurence")
    by_bisection = {w for w in edits if vocab._at(w) >= 0}
    assert "insurance" in by_bisection
    assert vocab.among(edits) == by_bisection
