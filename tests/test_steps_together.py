"""The batch path runs each step over a chunk of questions before the next step
(`run_steps_together`); the rows must be those of `run_steps` question by question, and
one question's failure must stay its own."""

from __future__ import annotations

import time
import warnings

import pytest

from quaestio import DEFAULT_STEPS, parse_questions
from quaestio.analysis import pipeline
from quaestio.analysis.pipeline import finish_record, new_draft, run_steps, run_steps_together
from quaestio.satellites import bundled_satellites

QUESTIONS = [
    "What is the annual premium of plan B and when is it due?",
    "Quelles sont les exclusions et les limitations du contrat ?",
    "¿Cuál es el deducible de la póliza de 2024?",
    "List the deductibles in the table on pages 3-5.",
    "Does this contract include a non-compete clause and, if so, for how long?",
    "Show me the latest version.",
    "Who is the insurer named in section 4.2 of the annex?",
    "What percentage of claims were denied between January and March 2023?",
    'Is GDPR or ISO-9001 cited, and what does "force majeure" mean?',
    "premiums",
    "Quel est le montant de la prime en euros pour un conducteur de 25 ans ?",
    "What are the premiums?",
]


def _comparable(record: dict) -> dict:
    return {k: v for k, v in record.items() if k != "latency_ms"}


@pytest.mark.parametrize("window", [None, 5, 1])
def test_drafts_are_those_of_run_steps_one_by_one(window, monkeypatch):
    if window is not None:  # drafts go through the steps a window at a time
        monkeypatch.setattr(pipeline, "_WINDOW", window)
    sats = bundled_satellites()
    one_by_one = [_comparable(finish_record(*run_steps(q, sats))) for q in QUESTIONS]
    drafts = [new_draft(q, sats) for q in QUESTIONS]
    spent, failed = run_steps_together(drafts, DEFAULT_STEPS)
    assert failed == {}
    assert all(s > 0 for s in spent)
    assert [_comparable(finish_record(d, 0.0)) for d in drafts] == one_by_one


def test_a_callers_step_still_reads_every_keyword():
    seen: dict[str, int] = {}

    def count_keywords(draft):  # a caller's step: reads draft.keywords whole
        seen[draft.original] = len(draft.keywords)

    sats = bundled_satellites()
    steps = (*DEFAULT_STEPS, count_keywords)
    alone = {}
    for q in QUESTIONS:
        draft, _ = run_steps(q, sats, steps=steps)
        alone[q] = seen[q]
    seen.clear()
    run_steps_together([new_draft(q, sats) for q in QUESTIONS], steps)
    assert seen == alone
    assert seen["What is the annual premium of plan B and when is it due?"] > 3


def _exploding_on(word: str):
    def explode(draft):
        if word in draft.original:
            raise RuntimeError(f"boom on {word}")

    return explode


@pytest.mark.parametrize("window", [None, 5])
def test_a_failing_question_is_its_own_error_row_and_skips_later_steps(window, monkeypatch):
    if window is not None:
        monkeypatch.setattr(pipeline, "_WINDOW", window)
    calls: list[str] = []

    def after(draft):
        calls.append(draft.original)

    steps = (*DEFAULT_STEPS[:3], _exploding_on("Quelles"), *DEFAULT_STEPS[3:], after)
    qdf = parse_questions(QUESTIONS, bundled_satellites(), steps=steps, as_="polars")
    assert qdf.height == len(QUESTIONS)
    codes = qdf["error_code"].to_list()
    assert codes[1] == "internal_error" and "boom on Quelles" in qdf["error_message"][1]
    assert [c for i, c in enumerate(codes) if i != 1] == [None] * (len(QUESTIONS) - 1)
    assert QUESTIONS[1] not in calls and len(calls) == len(QUESTIONS) - 1
    alone = parse_questions(QUESTIONS[:1], as_="polars")
    assert qdf["concepts"].to_list()[0] == alone["concepts"].to_list()[0] == ["premium"]


def test_errors_raise_raises_the_first_failing_question_in_input_order():
    # The late step fails on question 1, an early step on question 3: question 1's error is
    # the one raised, as when the questions ran one after the other.
    steps = (_exploding_on("List the"), *DEFAULT_STEPS, _exploding_on("Quelles"))
    with pytest.raises(RuntimeError, match="boom on Quelles"):
        parse_questions(QUESTIONS, bundled_satellites(), steps=steps, errors="raise")


def test_errors_warn_warns_in_input_order():
    steps = (_exploding_on("List the"), *DEFAULT_STEPS, _exploding_on("Quelles"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qdf = parse_questions(QUESTIONS, bundled_satellites(), steps=steps, errors="warn")
    assert [str(w.message).split(":")[0] for w in caught] == ["question 'q1'", "question 'q3'"]
    assert len(qdf) == len(QUESTIONS)


def test_latency_is_each_questions_own_time():
    questions = QUESTIONS * 20
    started = time.perf_counter()
    qdf = parse_questions(questions, bundled_satellites(), as_="polars")
    wall_ms = (time.perf_counter() - started) * 1000
    latency = qdf["latency_ms"]
    # Each question is charged its own steps, not the time since its chunk started: the
    # latencies add up to no more than the call took (charged from the chunk's start, the
    # 240 rows would add up to ~120 times it).
    assert latency.min() > 0
    assert latency.sum() <= wall_ms
