"""Issue 13, item 8: one time budget per question across all its rule calls, and patterns
that backtrack catastrophically refused at load, naming their row."""

from __future__ import annotations

import polars as pl
import pytest

from quaestio import SatelliteError, load_satellites, parse_question
from quaestio.satellites.schemas import catastrophic_probe, compile_pattern


def cue(pattern: str, family: str = "explicit_list_end") -> dict:
    return {
        "cues": pl.DataFrame(
            {
                "cue_id": ["analyst_row"],
                "family": [family],
                "pattern": [pattern],
                "language": ["en"],
            }
        )
    }


@pytest.mark.parametrize(
    "pattern", [r"(a|aa)+b", r"(.*?,){11}P", r"(?:x|xx)+y", r"(?:[a-z]|\w)+\d"]
)
def test_a_catastrophic_pattern_is_refused_at_load_naming_its_row(pattern):
    with pytest.raises(SatelliteError) as err:
        load_satellites(extra=cue(pattern))
    (case,) = err.value.failure_cases
    assert case["table"] == "cues" and case["row"] == 0 and case["value"] == pattern
    assert "backtracks catastrophically" in case["reason"]


@pytest.mark.parametrize(
    "pattern",
    [
        r"\s+(?:in|on)\s+(?:the|this)\b",
        r"(?:\d{1,3},)+\d{3}",
        r"\b(?:key\s?words?|search\s+terms?)\s*:\s*",
    ],
)
def test_ordinary_patterns_pass_the_probe(pattern):
    assert catastrophic_probe(compile_pattern(pattern)) is None


def test_a_slow_row_costs_the_question_budget_once_not_a_limit_per_list_marker():
    # `\w+\d` is quadratic, not exponential: it passes the load probe, and on a long word
    # each search runs into the per-call limit. 100 list markers used to cost 100 limits.
    sats = load_satellites(extra=cue(r"\w+\d"))
    defaults = sats.defaults
    question = "keywords: alpha, beta. " * 100 + "a" * 20000
    row = parse_question(question, sats)
    warnings = row.provenance.warnings
    timeouts = [w for w in warnings if w.startswith("W101") and "analyst_row" in w]
    assert timeouts, "the slow row should have hit its per-call limit"
    # Each timed-out call spends at least the per-call limit out of the budget.
    assert len(timeouts) <= defaults.regex_budget_ms // defaults.regex_timeout_ms + 1
    assert any(w.startswith("W104") for w in warnings)
    assert row.keywords_by_source("explicit")[:2] == ["alpha", "beta"]


def test_compiling_a_rule_on_first_use_does_not_spend_the_question_budget(monkeypatch):
    # Rules compile on their first use (satellites.facts.LazyPattern). Make each compile cost
    # 30 ms of CPU: a fresh table set compiles far more than the 500 ms budget's worth of
    # rules for its first question, and that must not skip any rule (W104).
    import time

    from quaestio.satellites import facts

    real = facts.compiled

    def slow(pattern, flags=0):
        end = time.thread_time() + 0.03
        while time.thread_time() < end:
            pass
        return real(pattern, flags)

    monkeypatch.setattr(facts, "compiled", slow)
    sats = load_satellites(extra=cue(r"\bnever_in_a_question\b"))  # a fresh table set
    row = parse_question("What is the website of the insurer, as listed on page 3?", sats)
    assert not [w for w in row.provenance.warnings if w.startswith("W104")]
    assert row.answer_type == "url"
