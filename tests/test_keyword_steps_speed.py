"""The keyword steps take shortcuts (issue 18: a cheaper parse, the same output); each is
checked here against the plain way of getting the same answer, on many questions."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaestio import DEFAULT_STEPS, prepare
from quaestio.analysis import dictionary, direct, dispatch, language, spelling
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


def _typo(word: str, at: int) -> str:
    at %= max(len(word), 1)
    return word[:at] + word[at + 1 :] if len(word) > 4 else word + "x"


_TYPOS = ["premum", "polcy", "anual", "deductable", "insurence", "coverge", "Acme", "Germanyy"]


def _question(data, sats) -> str:
    keywords = _keywords(sats)
    word = st.one_of(
        st.builds(_typo, st.sampled_from(keywords), st.integers(0, 20)),
        st.sampled_from(keywords + _TYPOS + _NOISE),
        st.sampled_from(keywords).map(str.upper),
        st.text(alphabet="abcdeéñ", min_size=1, max_size=9),
    )
    return " ".join(data.draw(st.lists(word, min_size=1, max_size=12)))


def _before(step, question: str, sats):
    draft = new_draft(question, sats)
    run_steps_together([draft], DEFAULT_STEPS[: DEFAULT_STEPS.index(step)])
    return draft


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_spelling_looks_only_at_unknown_words_and_finds_what_a_look_at_all_finds(data, sats):
    question = data.draw(st.sampled_from(QUESTIONS)) if data.draw(st.booleans()) else ""
    question = question or _question(data, sats)
    draft = _before(spelling.correct_spelling, question, sats)
    plain = _before(spelling.correct_spelling, question, sats)
    spelling.correct_spelling(draft)
    language = plain.language or sats.defaults.default_language
    spelling.correct_words(plain, language, {t.folded for t in plain.tokens})
    assert draft.corrections == plain.corrections


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_direct_keywords_of_a_plain_draft_are_those_of_the_general_path(data, sats):
    question = _question(data, sats)
    draft = _before(direct.direct_keywords, question, sats)
    if draft.corrections or draft.has_protected_spans():
        return  # the shortcut is for drafts without either
    general = _before(direct.direct_keywords, question, sats)
    direct.add_direct(draft, plain=True)
    direct.add_direct(general, plain=False)
    assert draft.keywords == general.keywords


def _plain_plan(draft) -> tuple[dict, list[str]]:
    """The dispatch cascade row by row for every question, as it read before its cache."""
    rows = dispatch._rows(draft.sats)
    cols, fired = draft.columns, []
    kind = (cols.get("answer_type", "text"), cols.get("answer_shape", "single"))
    levels = [
        [("concepts", c, rows["concepts"].get(c)) for c in draft.concepts],
        [("answer_types", kind[0], rows["answer_types"].get(kind[0]))],
        [("answer_shapes", kind[1], rows["answer_shapes"].get(kind[1]))],
    ]
    plan = {}
    for setting, columns in dispatch._CASCADE.items():
        value = None
        for level, column in zip(levels, columns[:3]):
            for table, key, row in level if column else ():
                if value is None and row is not None and row.get(column) not in (None, ""):
                    value = row[column]
                    fired.append(f"{table}:{key}.{column}")
        if value is None:
            value = getattr(draft.sats.defaults, columns[3]) or None
            if value is not None:
                fired.append(f"defaults:{columns[3]}")
        plan[setting] = value
    return plan, list(dict.fromkeys(fired))


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_dispatch_plan_is_the_cascade_row_by_row(data, sats):
    """Drafts of every kind in turn, so the per-kind cache answers a kind it built for
    another question."""
    rows = dispatch._rows(sats)
    types = st.sampled_from([*rows["answer_types"], "text", "unknown"])
    shapes = st.sampled_from([*rows["answer_shapes"], "single", "unknown"])
    concepts = st.lists(st.sampled_from(sorted(sats.concepts["concept"].to_list())), max_size=4)
    draft = new_draft("What is covered?", sats)
    draft.columns.update(answer_type=data.draw(types), answer_shape=data.draw(shapes))
    draft.concepts[:] = dict.fromkeys(data.draw(concepts))
    dispatch.dispatch_plan(draft)
    plan, fired = _plain_plan(draft)
    assert {k: draft.columns[k] for k in plan} == plan
    assert draft.rules_fired == fired


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_language_alone_in_the_scores_is_the_vote_of_the_general_path(data, sats):
    draft = new_draft(_question(data, sats), sats)
    language.detect_language(draft)
    index = sats.cached("stopword_index", language._stopword_index)
    scores = language._scores(draft, index)
    if len(scores) == 1 and max(scores.values()) >= sats.defaults.language_min_evidence:
        assert draft.language == language._vote(draft, index, scores)
