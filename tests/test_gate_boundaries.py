"""The literal gate reads literals at word boundaries (`analysis.literals`): a literal the
pattern keeps word characters off counts only where the text has none beside it, and the
gate must still never drop a rule the real `regex` search matches."""

import sys

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaestio.analysis.gate import LiteralGate
from quaestio.analysis.literals import EDGE, is_word, literal_factors, normalise
from quaestio.analysis.rules import cue_rules


class Row:
    def __init__(self, pattern: str, flags: int = regex.IGNORECASE):
        self.pattern = regex.compile(pattern, flags)


def _kept(pattern: str, text: str, flags: int = regex.IGNORECASE) -> bool:
    row = Row(pattern, flags)
    return LiteralGate([row]).candidates(text.casefold(), free=False) == [row]


def test_a_bounded_literal_inside_a_longer_word_is_not_there():
    for pattern in (r"\bman\b", r"(?<!\w)man(?!\w)", r"\s+man(?:e?s)?\b", r"^\W*man\W"):
        assert not _kept(pattern, "how many more?"), pattern
        assert not _kept(pattern, "the woman's view"), pattern
        assert _kept(pattern, " a man, he said"), pattern
    # one side bounded: the other may run on
    assert _kept(r"\bman", "many") and not _kept(r"\bman", "woman")
    assert _kept(r"man\b", "woman") and not _kept(r"man\b", "many")


def test_the_sides_a_word_character_may_touch_stay_open():
    # `\b` beside a non-word character bounds the other way; a class that may hold a word
    # character (`\P{L}` holds digits) bounds nothing; ASCII `\b` falls inside "café"
    assert _kept(r"\b%\s+of\b", "50% of it")
    assert _kept(r"man\P{L}", "woman5")
    assert _kept(r"\bcaf\b", "café", regex.IGNORECASE | regex.ASCII)
    assert _kept(r"(?a)\bcaf\b", "café")
    assert not _kept(r"\bcaf\b", "café")


def test_white_space_inside_a_literal_is_any_run_of_it():
    assert _kept(r"\bhow\s+much\b", "How \t\n much is it?")
    assert _kept(r"\bhow much\b", "how\u00a0\u2003much")  # regex: no; the gate may say yes
    assert not _kept(r"\bhow\s+much\b", "how, much")


def test_the_turkish_i_reads_as_regex_matches_it():
    # `regex` matches a pattern's "i" with "İ" and its "I" with "ı"; casefolding alone
    # gives "i̇" and "ı", so the gate read before this dropped both
    assert regex.search(r"(?i)\bpink\b", "PİNK") and _kept(r"\bpink\b", "PİNK")
    assert regex.search(r"(?i)\bPINK\b", "pınk") and _kept(r"\bPINK\b", "pınk")


def test_casefolding_keeps_whether_a_character_is_a_word_character():
    """What the boundary check rests on: it looks at the casefolded text's characters."""
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        folded = char.casefold()
        if folded != char:
            assert {is_word(c) for c in folded} == {is_word(char)}, hex(code)


def test_the_english_person_cue_no_longer_wakes_on_words_inside_words(bundled):
    """`type_person_head_en` needs a person noun as a word after "what"/"which": "their"
    holds "heir", "many" holds "man", "place" holds "ace"."""
    rules = cue_rules(bundled, "answer_type")
    rule = next(r for r in rules if r.rule_id == "type_person_head_en")
    nouns = max(literal_factors(rule.pattern.pattern), key=len)
    assert {" heir" + EDGE, " man" + EDGE, " mans" + EDGE, " ace" + EDGE} <= nouns
    for question in ("Which of their many cars is the fastest?", "What place has most rain?"):
        assert not rule.pattern.search(question)
        assert rule not in rules.gate.candidates(question.casefold(), free=False), question
    question = "Which famous man painted the Mona Lisa?"
    assert rule.pattern.search(question)
    assert rule in rules.gate.candidates(question.casefold(), free=False)


# Patterns around a literal, each side kept off word characters in one of the ways the
# bundled cue rows use, or not at all; texts made of the literals' letters, their case
# variants, accents, digits and every kind of neighbour a boundary may meet.
LEFT = [r"\b", r"(?<!\w)", r"\s+", r"^\W*", r"[,;:]\s*", r"\W", "", r"(?<=[\s'’])", "^", "x"]
RIGHT = [r"\b", r"(?!\w)", r"\s+", r"(?:e?s)?\b", r"\W+", "$", "", r"(?=[,.])", r"(?![\w-])"]
# and sides that bound nothing: classes holding word characters, a run that may be empty
LEFT += [r"\P{L}", r"[^\p{L}]", r"[\w-]", r"\W*", r"(?<=\s|x)"]
RIGHT += [r"\P{L}", r"[^,]", r"\W*", r"(?=\s*x)"]
WORDS = ["man", "ace", "heir", "how much", "café", "l’", "naïve", "x-ray", "7th", "pink", "ß"]
WORDS += ["’s", "% of", "-year"]  # a non-word character first: `\b` bounds the other way
PIECES = (
    WORDS
    + ["M", "A", "N", "Ace", "MAN", "İ", "ı", "I", "e", "s", "es", "é", "\u0301", "\u0307"]
    + [" ", "  ", "\t", "\n", "\u00a0", "\u2003", ",", ".", "'", "’", "-", "_", "5", "²"]
    + ["SS", "ẞ", "К", "w", "o"]
)
NEIGHBOURS = ["", "x", " ", "\n", "’", ",", "-", "5", "_", "é", "\u0301", "İ", "s", "es"]


def _pattern(left: str, words: list[str], right: str, space: str = r"\s+") -> str:
    return (
        left + "(?:" + "|".join(regex.escape(w).replace(r"\ ", space) for w in words) + ")" + right
    )


# every side with every word, and a few two-word alternations: (pattern, its words)
CASES = [(_pattern(a, [w], b), [w]) for a in LEFT for b in RIGHT for w in WORDS] + [
    (_pattern(a, [w, v], b, space), [w, v])
    for a, b, space in [(r"\b", r"\b", " "), (r"\s+", r"(?:e?s)?\b", r"\s*"), ("^", "$", " ")]
    for w in WORDS
    for v in WORDS[:4]
]


@pytest.fixture(scope="module")
def every_case():
    """One gate over every case's pattern (one registration, one automaton)."""
    rows = [Row(pattern) for pattern, _ in CASES]
    return rows, LiteralGate(rows)


def _check(rows, gate, text, which):
    kept = {id(r) for r in gate.candidates(text.casefold(), free=False)}
    dropped = [r.pattern.pattern for r in which if r.pattern.search(text) and id(r) not in kept]
    assert dropped == [], (text, dropped)


def test_the_gate_drops_no_case_for_any_neighbour(every_case):
    rows, gate = every_case
    by_word: dict[str, list] = {}
    for row, (_, words) in zip(rows, CASES):
        for word in words:
            by_word.setdefault(word, []).append(row)
    for word, which in by_word.items():
        variants = [word.upper(), word.replace(" ", "\t\n "), word.replace("i", "İ")]
        for variant in [word, *variants, word.upper().replace("I", "ı")]:
            for before in NEIGHBOURS:
                for after in NEIGHBOURS:
                    _check(rows, gate, before + variant + after, which)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, len(CASES) - 1),
    st.lists(st.sampled_from(PIECES), max_size=4).map("".join),
    st.lists(st.sampled_from(PIECES), max_size=4).map("".join),
    st.booleans(),
)
def test_the_gate_never_drops_a_pattern_regex_matches(every_case, index, before, after, upper):
    rows, gate = every_case
    word = CASES[index][1][0]
    _check(rows, gate, before + (word.upper() if upper else word) + after, [rows[index]])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8).map("".join))
def test_normalising_keeps_every_literal_a_text_holds(text):
    """A literal (casefolded and normalised as the pattern's are) that occurs in the
    casefolded text occurs in the normalised one: the scan over it misses nothing."""
    folded = text.casefold()
    for i in range(len(folded)):
        for j in range(i + 1, len(folded) + 1):
            literal = normalise(folded[i:j])
            assert not literal or literal in normalise(folded), (folded, i, j)


def test_a_gate_of_its_own_chooses_as_the_shared_automaton_does(every_case):
    """A passage's gate (`own=True`, confirmation) scans with its own literals only: it
    takes no bits of the shared automaton, and keeps the rules a shared gate keeps."""
    from quaestio.analysis import gate

    rows, shared = every_case
    before = gate._LITERALS._next
    own = LiteralGate(rows, own=True)
    assert gate._LITERALS._next == before
    for word in WORDS:
        for text in (word, f"a {word}s, x", f"x{word.upper()}_", f"¿{word}?\n"):
            assert own.candidates(text.casefold()) == shared.candidates(text.casefold()), text


def test_a_first_parse_builds_the_shared_automaton_once():
    """Every rule set a parse meets registers its gate before the first lookup
    (`rules.built_first`): anchors, the expanded date rows and the steps' unions came
    later, and each rebuilt the automaton of every literal (~0.1 s each, a fresh process
    built it four times)."""
    import subprocess

    code = (
        "from quaestio.analysis import gate\n"
        "builds = []\n"
        "build = gate._SharedLiterals._build\n"
        "def counted(self):\n"
        "    builds.append(self._state is None)\n"
        "    return build(self)\n"
        "gate._SharedLiterals._build = counted\n"
        "from quaestio import parse_question\n"
        "parse_question('On page 3, what did Acme sign in March 2023 and who is the insurer?')\n"
        "print(sum(builds))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1"]


def test_a_union_of_gates_reads_their_bits_and_chooses_as_they_do(every_case):
    """A step's union of families (`rules.union_rules`) takes no bits of its own."""
    from quaestio.analysis import gate

    rows, _ = every_case
    first, second = LiteralGate(rows[:300]), LiteralGate(rows[300:600])
    before = gate._LITERALS._next
    union = LiteralGate(rows[:600], [first, second])
    assert gate._LITERALS._next == before
    for word in WORDS:
        for text in (word, f"a {word}s, x", f"x{word.upper()}_"):
            folded = text.casefold()
            assert union.candidates(folded) == first.candidates(folded) + second.candidates(
                folded
            ), text
