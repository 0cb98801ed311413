"""The shortcuts of the work around the steps (issue 18) give what the general path gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quaestio.analysis.text import Token, _unicode_tokens, tokenize

ASCII = st.text(alphabet=st.characters(max_codepoint=127, exclude_categories=()), max_size=80)


@settings(max_examples=300, deadline=None)
@given(ASCII)
def test_ascii_tokens_are_those_of_the_general_path(text):
    assert tokenize(text) == _unicode_tokens(text)


def test_every_ascii_character_tokenizes_as_in_the_general_path():
    every = "".join(map(chr, range(128)))
    assert tokenize(every) == _unicode_tokens(every)
    for c in every:
        assert tokenize(f"a{c}B{c}{c}9") == _unicode_tokens(f"a{c}B{c}{c}9")


def test_tokens_compare_and_hash_by_their_fields():
    a, b = Token("Premium", "premium", 0, 7), Token("Premium", "premium", 0, 7)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Token("Premium", "premium", 1, 8)
