"""The literal factors of a regex: sets of strings, one of each must occur in any match.

`gate.LiteralGate` files each rule under these. A factor's string is read from the pattern
as casefolded text with every run of white space as one space (`\\s+` is " ", so
"how\\s+much" is one literal, and so is a multi-word head noun), and it may carry `EDGE`
at either end: the pattern guarantees that the text character on that side is not a word
character (or is the text's end): `\\bman\\b`, `(?<!\\w)man(?!\\w)`, `\\s+man\\b`. The gate
then finds "man" in "a man." but not in "many" or "woman".

While a pattern is read, three zero-width marks sit in its strings: `_B` (a `\\b`: which
side is bounded depends on the literal next to it), `_L` (the character before is not a
word character: a `(?<!\\w)`, `^`, or what follows `\\W`) and `_R` (the character here is
not one: `(?!\\w)`, `$`, what comes before `\\W`). A mark between two literal characters
says nothing more and is dropped; `_settle` turns those left at the ends into `EDGE`.
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING, NamedTuple

import regex

from ..satellites import facts

if TYPE_CHECKING:
    import sre_parse  # typeshed has the parser only under its deprecated 3.10 name
else:
    import re._parser as sre_parse

# Stands for "any digit" among the literals a pattern needs (`\d`, `\d{4}`): the text is
# checked for a digit instead of looking the sentinel up in the automaton.
DIGIT = "\x00digit"
EDGE = "\x01"  # at an end of a factor's string: no word character beside it in the text
_B, _L, _R = "\x02", "\x03", "\x04"
_MARKS = _B + _L + _R
# `regex`'s own classes, as the rules run under `regex` (`re` counts \x1c-\x1f as space)
_SPACES = regex.compile(r"\s+")
_WORD = regex.compile(r"\w")
_MAYBE_SPACES = re.compile(r"[^\S ]|  ")

# Strings an exact literal set may hold before it stops being tracked: a product of two
# sets, or a set grown by an alternation or a small set (a space before a word list, an
# optional plural after it), which adds strings without multiplying them: a head-noun
# list keeps its space and its `\b` and so becomes a word list. Products are kept small:
# the bundled rows' gates choose the same candidates with 128 as with 512 (sets of
# phrases run through `\s+` now), from 35,000 literals instead of 58,000.
_MAX_EXACT = 128
_MAX_GROWN = 4096
_MAX_FACTORS = 16  # factors kept for an alternation (each is a union across its branches)
_PASS = "pass"  # a nullable non-word run (`\W*`): bounded after it if bounded before it


def is_word(char: str) -> bool:
    return _WORD.match(char) is not None


def normalise(folded: str) -> str:
    """The text as the literals are read: casefolded, each run of white space one space,
    and the Turkish i's as "i": `regex` matches a pattern's "i" with "İ" (casefolded
    "i" + U+0307) and its "I" with "ı", which casefolding alone keeps apart."""
    if "\u0307" in folded or "ı" in folded:
        folded = folded.replace("\u0307", "").replace("ı", "i")
    # `re`'s white space holds `regex`'s: no match, nothing to rewrite (most questions)
    return _SPACES.sub(" ", folded) if _MAYBE_SPACES.search(folded) else folded


def core(literal: str) -> str:
    """A factor's string without its `EDGE`s: what the text must contain."""
    return literal.strip(EDGE)


class _Reading(NamedTuple):
    exact: set[str] | None  # every string the nodes match, marks included, if few
    factors: list[frozenset[str]]  # settled: one string of each must occur
    lead: bool | str = False  # the character at the start is not a word character
    trail: bool | str = False  # the character before the end is not a word character


# Syntax that `re` would parse differently from `regex` (fuzzy counts, nested sets, branch
# resets, `regex`-only escapes): such a pattern gets no prefilter and always runs. Case
# matters: `\n`, `\x41`, `\g<name>` are `re` escapes too; `\p{..}` is read by `_for_re`.
_REGEX_ONLY = re.compile(r"\{[^}]*[a-z<=>][^}]*\}|\[\[|\(\?\||\\[LXGmMKNV]")
# What `_for_re` rewrites, outside character classes and escapes: the openers of named
# groups (a name may repeat across alternatives in `regex`, not in `re`).
_NAMED_GROUP = re.compile(r"\(\?P?<(?![=!])(\w+)>")
_ASCII = re.compile(r"\(\?[a-zA-Z-]*a[a-zA-Z-]*[:)]")  # `(?a)`, `(?ai:..)`
_PROPERTY = re.compile(r"\\([pP])(?:\{[^}]*\}|[A-Za-z])")


def _for_re(pattern: str) -> str:
    """The pattern in a form `re` parses with the same literals: a `\\p{..}` or `\\P{..}`
    class becomes "any character" (it needs no literal, and it may hold word characters
    and others alike, so it bounds nothing), and a group name seen before (`regex` lets
    alternatives reuse one) names a plain group, so the pattern stays readable; a back
    reference still finds the first group of its name, and requires no literal."""
    out, i, in_class, names = [], 0, False, set()
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            prop = _PROPERTY.match(pattern, i)
            if prop:
                out.append("\\s\\S" if in_class else "[\\s\\S]")
                i = prop.end()
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            out.append(char)
            i += 1
            # a "]" first in the class (or after "^") is a literal, not its end
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):
                out.append("]")
                i += 1
            continue
        elif char == "(" and (named := _NAMED_GROUP.match(pattern, i)):
            name = named.group(1)
            out.append("(" if name in names else f"(?P<{name}>")
            names.add(name)
            i = named.end()
            continue
        out.append(char)
        i += 1
    return "".join(out)


# The facts kind of a reading (`satellites.facts`), a name no other reading of the shared
# cache file has used: a stale kind would be trusted. A change of the reading renames it.
FACT_KIND = "literals-bounded-v2"


def literal_factors(pattern: str) -> list[frozenset[str]]:
    # Read once per pattern text, and kept across processes (`satellites.facts`): reading a
    # pattern costs more than compiling it.
    fact = facts.key(FACT_KIND, pattern)
    known = facts.get(fact)
    if isinstance(known, list):
        return [frozenset(f) for f in known]
    found = _read_literal_factors(pattern)
    facts.put(fact, [sorted(f) for f in found])
    return found


def _read_literal_factors(pattern: str) -> list[frozenset[str]]:
    readable = _for_re(pattern)
    if _REGEX_ONLY.search(readable) or any(m in pattern for m in EDGE + _MARKS):
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            parsed = sre_parse.parse(readable, re.IGNORECASE)
            exact, factors, _, _ = _analyse(parsed)
    except Exception:  # anything `re` cannot read: no prefilter, the rule always runs
        return []
    whole = _factor(exact) if exact else None
    kept = [f for f in factors + ([whole] if whole else []) if _selective(f)]
    if parsed.state.flags & re.ASCII or _ASCII.search(readable):
        # ASCII word characters: a `\b` sits between "caf" and "é", so no side is bounded
        kept = [frozenset(core(s) for s in f) for f in kept]
    return list(dict.fromkeys(kept))


def _analyse(nodes) -> _Reading:
    factors: list[frozenset[str]] = []
    run, whole, lead = {""}, True, None
    for op, av in nodes:
        item = _item(op, av)
        if item.exact is not None:
            if _fits(len(run), len(item.exact)):
                run = {_join(a, b) for a in run for b in item.exact}
                continue
            after = _open_start(item.exact, False)
        else:
            after = item.lead is True
            factors += item.factors
        if lead is None:
            lead = _open_start(run, after)
        whole = False
        if after:
            run = {_join(s, _R) for s in run}
        if (factor := _factor(run)) is not None:
            factors.append(factor)
        before = _open_end(run)
        if item.exact is not None:
            run = {_join(_L, s) for s in item.exact} if before else set(item.exact)
        elif item.trail is True or (item.trail == _PASS and before):
            run = {_L}
        else:
            run = {""}
    if (factor := _factor(run)) is not None:
        factors.append(factor)
    if lead is None:
        lead = _open_start(run, False)
    return _Reading(run if whole else None, factors, lead, _open_end(run))


def _fits(size: int, more: int) -> bool:
    product = size * more
    return product <= _MAX_EXACT or (min(size, more) <= 3 and product <= _MAX_GROWN)


def _item(op, av) -> _Reading:
    name = str(op)
    if name == "LITERAL":
        return _Reading({_fold(av)}, [])
    if name == "AT":
        mark = {
            "AT_BOUNDARY": _B,
            "AT_BEGINNING": _L,
            "AT_BEGINNING_STRING": _L,
            "AT_END": _R,
            "AT_END_STRING": _R,
        }
        return _Reading({mark.get(str(av), "")}, [])
    if name in ("ASSERT", "ASSERT_NOT"):
        return _Reading({_assertion(name == "ASSERT", *av)}, [])
    if name == "SUBPATTERN":
        return _analyse(av[3])
    if name == "ATOMIC_GROUP":
        return _analyse(av)
    if name == "IN":
        kinds = [(str(o), str(v)) for o, v in av]
        if kinds == [("CATEGORY", "CATEGORY_DIGIT")]:
            return _Reading(None, [frozenset({DIGIT})])
        if kinds == [("CATEGORY", "CATEGORY_SPACE")]:
            return _Reading({" "}, [])
        chars = _listed_class(av)
        if chars is not None:  # `[QT]`, `[1-4]`: a few characters, each a literal
            return _Reading({_fold(c) for c in chars}, [])
        bounded = _non_word_class(av)
        return _Reading(None, [], bounded, bounded)
    if name == "BRANCH":
        return _branch([_analyse(b) for b in av[1]])
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        return _repeat(*av)
    return _Reading(None, [])


def _listed_class(av) -> list[int] | None:
    """The code points of a class of at most 8 listed characters and ranges (not negated,
    no category), else None."""
    codes: list[int] = []
    for op, value in av:
        kind = str(op)
        if kind == "LITERAL":
            codes.append(value)
        elif kind == "RANGE" and value[1] - value[0] < 8:
            codes.extend(range(value[0], value[1] + 1))
        else:
            return None
        if len(codes) > 8:
            return None
    return codes


def _fold(code: int) -> str:
    char = chr(code).casefold()
    return " " if _SPACES.fullmatch(char) else char


def _assertion(positive: bool, direction: int, nodes) -> str:
    """The mark a lookaround leaves: `(?<!\\w)` and `(?<=\\s)` bound the left side,
    `(?!\\w)` and `(?=[,.])` the right one; any other leaves none."""
    if positive:
        inner = _analyse(nodes)
        if direction < 0 and inner.trail is True:
            return _L
        if direction > 0 and inner.lead is True:
            return _R
        return ""
    if len(nodes) == 1 and str(nodes[0][0]) == "IN":
        kinds = [(str(o), str(v)) for o, v in nodes[0][1]]
        if ("CATEGORY", "CATEGORY_WORD") in kinds and not any(o == "NEGATE" for o, _ in kinds):
            return _L if direction < 0 else _R
    return ""


def _non_word_class(av) -> bool:
    """Whether a character class holds no word character (`\\W`, `[^\\w]`, `[\\s,;]`)."""
    kinds = [(str(o), v) for o, v in av]
    if [(o, str(v)) for o, v in kinds] in (
        [("NEGATE", "None"), ("CATEGORY", "CATEGORY_WORD")],
        [("CATEGORY", "CATEGORY_NOT_WORD")],
    ):
        return True
    for op, value in kinds:
        if op == "LITERAL" and not is_word(chr(value)):
            continue
        if op == "CATEGORY" and str(value) in ("CATEGORY_SPACE", "CATEGORY_NOT_WORD"):
            continue
        return False
    return bool(kinds)


def _branch(branches: list[_Reading]) -> _Reading:
    exacts = [b.exact for b in branches]
    known = [e for e in exacts if e is not None]
    union = set().union(*known) if len(known) == len(exacts) else None
    if union is not None and len(union) <= _MAX_GROWN:
        return _Reading(union, [])
    leads = [_open_start(b.exact, False) if b.exact is not None else b.lead for b in branches]
    trails = [_open_end(b.exact) if b.exact is not None else b.trail for b in branches]
    return _Reading(
        None, _either(branches), all(x is True for x in leads), all(x is True for x in trails)
    )


def _repeat(low: int, high: int, sub) -> _Reading:
    inner = _analyse(sub)
    exact = inner.exact
    if exact is not None and exact and all(s.strip(_MARKS) == " " for s in exact):
        return _Reading({" "} if low else {"", " "}, [])  # white space, one run of it
    lead, trail = (
        (_open_start(exact, False), _open_end(exact))
        if exact is not None
        else (inner.lead, inner.trail)
    )
    if low == 0:
        # may match nothing: bounded after it only if bounded before it
        optional = exact | {""} if exact is not None and high == 1 else None
        return _Reading(
            optional, [], _PASS if lead is True else False, _PASS if trail is True else False
        )
    required = inner.factors
    if exact and (factor := _factor(exact)) is not None:
        required = required + [factor]
    return _Reading(exact if low == high == 1 else None, required, lead, trail)


def _either(branches: list[_Reading]) -> list[frozenset[str]]:
    """What one of several alternatives requires: a factor of each, pairwise united."""
    options = []
    for branch in branches:
        whole = _factor(branch.exact) if branch.exact else None
        own = [f for f in branch.factors + ([whole] if whole else []) if _selective(f)]
        if not own:
            return []
        options.append(sorted(own, key=lambda f: (-min(len(core(s)) for s in f), len(f)))[:3])
    combined: list[frozenset[str]] = [frozenset()]
    for own in options:
        combined = [c | f for c in combined for f in own][:_MAX_FACTORS]
    return combined


def _join(left: str, right: str) -> str:
    """Two strings read one after the other: the marks between two literal characters go,
    and so does the second of two spaces (one run of white space)."""
    a, b = left.rstrip(_MARKS), right.lstrip(_MARKS)
    if not a or not b:
        return left + right
    if a.endswith(" ") and b.startswith(" "):
        b = b[1:]
    return a + b


def _open_start(strings: set[str], then: bool) -> bool:
    """Whether no word character is at the start of any of `strings` (`then`: of what
    follows, for a string that may be empty)."""
    for s in strings:
        text = s.lstrip(_MARKS)
        leading = s[: len(s) - len(text)]
        if _R in leading or (text.strip(_MARKS) and not is_word(text[0])):
            continue
        if not text.strip(_MARKS) and then:
            continue
        return False
    return True


def _open_end(strings: set[str]) -> bool:
    """Whether no word character comes just before the end of any of `strings`."""
    for s in strings:
        text = s.rstrip(_MARKS)
        trailing = s[len(text) :]
        if _L in trailing or (text.strip(_MARKS) and not is_word(text[-1])):
            continue
        return False
    return True


def _factor(strings: set[str] | None) -> frozenset[str] | None:
    """The strings as a factor (their marks settled), or None if one may be empty."""
    if not strings:
        return None
    settled = [_settle(s) for s in strings]
    return None if any(not core(s) for s in settled) else frozenset(settled)


def _settle(s: str) -> str:
    text = s.strip(_MARKS)
    head, tail = s[: len(s) - len(s.lstrip(_MARKS))], s[len(s.rstrip(_MARKS)) :]
    text = normalise(text.replace(_B, "").replace(_L, "").replace(_R, ""))
    if not text:
        return ""
    left = _L in head or (_B in head and is_word(text[0]))
    right = _R in tail or (_B in tail and is_word(text[-1]))
    return (EDGE if left else "") + text + (EDGE if right else "")


def _selective(factor: frozenset[str]) -> bool:
    # A lone letter or digit is in nearly every question, and so is a space (`\s+`); a
    # lone "%" or "?" is not.
    return (
        bool(factor)
        and factor != {" "}
        and all(len(c) >= 2 or (c and not c.isalnum()) for c in map(core, factor))
    )
