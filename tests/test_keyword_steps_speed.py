"""The keyword steps take shortcuts (issue 18: a cheaper parse, the same output); each is
checked here against the plain way of getting the same answer, on many questions."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaestio import DEFAULT_STEPS, prepare
from quaestio.analysis import dictionary
from quaestio.analysis.dictionary import _BLOCKED, dictionary_index
from quaestio.analysis.pipeline import new_draft, run_steps_together
from quaestio.satellites import bundled_satellites

QUESTIONS = [
    "What is the annual premium of plan B and when is it due?",
    "What are the premiums and the deductibles?",
    "Quelles sont les exclusions et les limitations du contrat ?",
    "¿Cuál es el deducible de la póliza de 2024?",
    'Is GDPR or ISO-9001 cited, and what does "force majeure" mean?',
    "IS THE US PREMIUM DUE IN IT?",
    "Does the insurer cover the US and IT offices?",
    "What is the anual premum of my polcy?",
    "ͺ premium ͺ ͺ deductible",
    "Quel est le montant de la prime en euros pour un conducteur de 25 ans ?",
    "Who is the insurer of the policy holder, and is the insured covered?",
]


@pytest.fixture(scope="module")
def sats():
    return prepare(bundled_satellites())


def _keywords(sats) -> list[str]:
    entries = dictionary_index(sats).entries
    return sorted({e.keyword for e in entries})[:400]


def _before_dictionary(question: str, sats):
    """A draft as `dictionary_keywords` receives it."""
    steps = DEFAULT_STEPS[: DEFAULT_STEPS.index(dictionary.dictionary_keywords)]
    draft = new_draft(question, sats)
    run_steps_together([draft], steps)
    return draft


def _plain_find(draft, index) -> dict[tuple[int, int], list[int]]:
    """`dictionary._find` the slow way: every run of tokens looked up as a key, as written
    and then in lemmas, the spans inside a longer one dropped."""
    folded = [
        _BLOCKED if draft.is_protected(t) else draft.folded(i) for i, t in enumerate(draft.tokens)
    ]
    shouting = not any(c.islower() for c in draft.original)
    runs = [(a, b) for a in range(len(folded)) for b in range(a, len(folded))]
    spans: dict[tuple[int, int], list[int]] = {}
    for a, b in runs:
        value = index.automaton.get(" " + " ".join(folded[a : b + 1]) + " ", None)
        ok = [
            i
            for i in (value[2] if value else ())
            if dictionary._accept(draft, index.entries[i], a, b, shouting)
        ]
        if ok:
            spans[a, b] = ok
    lemmas = dictionary._lemma_automaton(index, draft.language)
    if lemmas is not None:
        written = [dictionary._written(draft, i) for i in range(len(folded))]
        words = [
            f if f == _BLOCKED else dictionary._lemma_word(w, draft.language)
            for f, w in zip(folded, written)
        ]
        for a, b in runs:
            value = lemmas.get(" " + " ".join(words[a : b + 1]) + " ", None)
            if value is None or (a, b) in spans:
                continue
            ids = list(value[2])
            if a == b:
                ids = [
                    i for i in ids if dictionary._same_word(folded[a], index.entries[i].keyword)
                ]
            if ids:
                spans[a, b] = ids
    inside = {
        s for s in spans for t in spans if s != t and t[0] <= s[0] and s[1] <= t[1]
    }  # fmt: skip
    return {s: spans[s] for s in sorted(spans) if s not in inside}


def _same_as_plain(question: str, sats) -> None:
    draft = _before_dictionary(question, sats)
    index = dictionary_index(sats)
    found = dictionary._find(draft, index)
    assert found == _plain_find(draft, index)
    assert list(found) == sorted(found)  # `dictionary_keywords` reads them in this order


@pytest.mark.parametrize("question", QUESTIONS)
def test_find_is_the_plain_lookup_of_every_run(question, sats):
    _same_as_plain(question, sats)


_NOISE = ["the", "of", "and", "US", "IT", "ͺ", "de", "la", "les", "is", "2024", '"', "?", ","]
_FORMS = st.sampled_from(["", "s", "es", "x", "ies", "ed"])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_find_is_the_plain_lookup_on_generated_questions(data, sats):
    keywords = _keywords(sats)
    word = st.one_of(
        st.builds(lambda k, f: k + f, st.sampled_from(keywords), _FORMS),
        st.sampled_from(keywords).map(str.upper),
        st.sampled_from(_NOISE),
        st.text(alphabet="abcdeéñ", min_size=1, max_size=8),
    )
    question = " ".join(data.draw(st.lists(word, min_size=1, max_size=12)))
    _same_as_plain(question, sats)


@given(st.lists(st.text(alphabet="ab\u037a", max_size=4), max_size=12))
def test_start_of_is_each_words_offset_in_the_padded_text(words):
    plain, pos = {}, 1
    for i, w in enumerate(words):
        plain[pos] = i
        pos += len(w) + 1
    assert dictionary._start_of(words) == plain


_STEMS = st.sampled_from(["insur", "premi", "polic", "claim", "deduc", "cover", "limit"])


@given(
    st.lists(_STEMS).map(Counter), st.lists(_STEMS).map(Counter), st.frozensets(_STEMS)
)  # fmt: skip
def test_overlap_counted_over_the_question_is_the_count_over_the_concept(context, own, words):
    assert dictionary._overlap(context, own, words) == sum(
        1 for stem in words if context[stem] > own[stem]
    )
