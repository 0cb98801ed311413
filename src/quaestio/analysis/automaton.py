"""The Aho-Corasick automaton of a set of literals (`literals`), and one scan of a text.

A literal maps to the factor bits it satisfies (an int, a bit per factor); one scan of a
text ORs the bits of every literal found. A literal with `EDGE`s counts only where the
text has no word character on those sides, so its automaton value says what it satisfies
with each side open or closed, and a hit costs one look at the text's word marks.
"""

from __future__ import annotations

import re

import ahocorasick

from .literals import DIGIT, EDGE, is_word, normalise

_HAS_DIGIT = re.compile(r"\d")


def number(factors: list[list[frozenset[str]]], bits: dict[str, int], first: int) -> list[int]:
    """Bits for the factors of a gate's rules (a rule: a list of literal sets), one each
    from bit `first`, each literal's added to `bits`; each rule's needs, from `first`."""
    needs, next_bit = [], first
    for rule in factors:
        need = 0
        for factor in rule:
            bit = 1 << next_bit
            next_bit += 1
            need |= bit
            for literal in factor:
                bits[literal] = bits.get(literal, 0) | bit
        needs.append(need >> first)
    return needs


def build(bits: dict[str, int]) -> tuple[ahocorasick.Automaton, int]:
    """(the automaton over the literals' texts, the factors a digit satisfies)."""
    # a string found in the text -> the factors it satisfies there: an int when none of
    # its literals is bounded (most), else its length and what it satisfies with word
    # characters on both sides, with none on its left, on its right, on either side (one
    # `|=` a hit: the ints are a bit per factor, hundreds of bits wide)
    by_core: dict[str, list[int]] = {}
    for literal, factor_bits in bits.items():  # ~35,000 of them: start-up time
        if literal == DIGIT:
            continue
        kind = (literal[0] == EDGE) + 2 * (literal[-1] == EDGE)
        text = literal[kind & 1 : len(literal) - (kind >> 1)] if kind else literal
        entry = by_core.get(text)
        if entry is None:
            entry = by_core[text] = [0, 0, 0, 0]
        entry[kind] |= factor_bits
    automaton = ahocorasick.Automaton()
    for text, (free, left, right, both) in by_core.items():
        if left | right | both:
            value = (len(text), free, free | left, free | right, free | left | right | both)
            automaton.add_word(text, value)
        else:
            automaton.add_word(text, free)
    if len(automaton):
        automaton.make_automaton()
    return automaton, bits.get(DIGIT, 0)


def scan(automaton: ahocorasick.Automaton, digit: int, folded: str) -> int:
    """The factors one of whose literals occurs in the casefolded text `folded`: with no
    word character beside it, on the sides where its `EDGE`s say so."""
    found = 0
    if len(automaton):
        text = normalise(folded)
        last, words = len(text) - 1, ""
        for end, bits in automaton.iter(text):
            if bits.__class__ is int:
                found |= bits
                continue
            if not words:  # "w" where the text has a word character (C-speed lookups)
                words = text.translate(_WORDNESS)
            size, closed, left, right, both = bits
            start = end - size + 1
            open_right = end == last or words[end + 1] != "w"
            if start == 0 or words[start - 1] != "w":
                found |= both if open_right else left
            elif open_right:
                found |= right
            elif closed:
                found |= closed
    if digit and _HAS_DIGIT.search(folded):
        found |= digit
    return found


class _Wordness(dict):
    """Code point -> "w" for a word character (`literals.is_word`), " " for another: the
    table `str.translate` marks a text's word characters with, filled as they come."""

    def __missing__(self, code: int) -> str:
        if len(self) >= 65536:
            self.clear()
        mark = self[code] = "w" if is_word(chr(code)) else " "
        return mark


_WORDNESS = _Wordness()
