"""The Aho-Corasick automaton of a set of literals (`literals`), and one scan of a text.

A literal maps to the factor bits it satisfies (an int, a bit per factor); one scan of a
text ORs the bits of every literal found. A literal with `EDGE`s counts only where the
text has no word character on those sides. Both the text and the literals are read in a
*marked* form where every non-word character stands between two `EDGE`s and the text
between two more (`_marked`): "a man." is "\\x01a\\x01 \\x01man\\x01.\\x01\\x01". A word
bounded on the left is then the literal "\\x01man", which "woman" does not hold, and a
non-word character with no word character before it ("\\x01 où" read from `(?:^|\\W)\\s`)
is "\\x01\\x01 \\x01où": two marks, the one after the previous non-word character (or the
text's start) and its own. So every hit is an int to OR, taken in C, with no look at the
text around it (the scan was ~20 us a question, most of it that look, in Python).
"""

from __future__ import annotations

import re
from functools import reduce
from operator import itemgetter, or_

import ahocorasick

from .literals import DIGIT, EDGE, is_word, normalise

_HAS_DIGIT = re.compile(r"\d")
_BITS = itemgetter(1)


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
    """(the automaton over the literals' marked texts, the factors a digit satisfies)."""
    words: dict[str, int] = {}  # a literal's marked text -> the factors it satisfies
    for literal, factor_bits in bits.items():  # ~35,000 of them: start-up time
        if literal == DIGIT:
            continue
        left = literal[0] == EDGE
        right = literal[-1] == EDGE and len(literal) > 1
        core = literal[left : len(literal) - right]
        word = EDGE * left + core.translate(_MARKS) + EDGE * right
        words[word] = words.get(word, 0) | factor_bits
    automaton = ahocorasick.Automaton()
    for word, factor_bits in words.items():
        automaton.add_word(word, factor_bits)
    if len(automaton):
        automaton.make_automaton()
    return automaton, bits.get(DIGIT, 0)


def scan(automaton: ahocorasick.Automaton, digit: int, folded: str) -> int:
    """The factors one of whose literals occurs in the casefolded text `folded`: with no
    word character beside it, on the sides where its `EDGE`s say so."""
    found = 0
    if len(automaton):
        found = reduce(or_, map(_BITS, automaton.iter(_marked(normalise(folded)))), 0)
    if digit and _HAS_DIGIT.search(folded):
        found |= digit
    return found


def _marked(text: str) -> str:
    return EDGE + text.translate(_MARKS) + EDGE


class _Marks(dict):
    """Code point -> itself for a word character (`literals.is_word`), the character
    between two `EDGE`s for another: the table `str.translate` marks a text with, filled as
    the characters come."""

    def __missing__(self, code: int) -> str:
        if len(self) >= 65536:
            self.clear()
        char = chr(code)
        mark = self[code] = char if is_word(char) else EDGE + char + EDGE
        return mark


_MARKS = _Marks()
