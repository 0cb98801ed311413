"""Issue 13, item 7: every `defaults` value has a type and a range, checked at load."""

from __future__ import annotations

from dataclasses import fields

import polars as pl
import pytest

from quaestio import SatelliteError, load_satellites
from quaestio.satellites.defaults import CHOICES, LIMITS, Defaults, parse_defaults


def load_with(key: str, value: str):
    return parse_defaults(pl.DataFrame({"key": [key], "value": [value]}))


@pytest.mark.parametrize(
    "key, value",
    [
        ("regex_timeout_ms", "-5"),
        ("regex_timeout_ms", "0"),
        ("regex_budget_ms", "-1"),
        ("weight_explicit", "7"),
        ("weight_direct", "0"),
        ("weight_llm_rewrite", "nan"),
        ("llm_max_retries", "-1"),
        ("llm_timeout_s", "-3"),
        ("llm_timeout_s", "inf"),
        ("llm_backoff_s", "-0.1"),
        ("llm_concurrency", "0"),
        ("retrieval_k", "0"),
        ("max_page_number", "-2"),
        ("pages_hint_limit", "0"),
        ("toc_match_cutoff", "101"),
        ("language_word_ratio", "0.5"),
        ("fuzzy_min_length", "2.5"),
        ("llm_max_rewrite_terms", "-1"),
        ("chunk_strategy", "random"),
        ("default_language", "klingon"),
        ("llm_rewrite_language", "EN"),
        ("fuzzy_enabled", "maybe"),
    ],
)
def test_an_out_of_range_default_is_a_load_error_naming_the_row(key, value):
    with pytest.raises(SatelliteError) as err:
        load_with(key, value)
    (case,) = err.value.failure_cases
    assert case["column"] == "value" and case["value"] == value
    assert case["reason"].startswith(f"{key} must be")


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("regex_timeout_ms", "1", 1),
        ("weight_explicit", "1", 1.0),
        ("llm_max_retries", "0", 0),
        ("llm_rewrite_language", "", ""),
        ("toc_match_cutoff", " 80 ", 80.0),
    ],
)
def test_values_in_range_load(key, value, expected):
    assert getattr(load_with(key, value), key) == expected


def test_a_bad_extra_default_is_refused_by_load_satellites():
    with pytest.raises(SatelliteError, match="weight_explicit must be a number in"):
        load_satellites(
            extra={"defaults": pl.DataFrame({"key": ["weight_explicit"], "value": ["7"]})},
            override=True,
        )


def test_every_number_has_a_range_and_every_range_a_field():
    numbers = {f.name for f in fields(Defaults) if f.type in ("int", "float")}
    assert numbers == set(LIMITS)
    assert set(CHOICES) <= {f.name for f in fields(Defaults)}
    for name, (low, high, _) in LIMITS.items():
        assert low <= getattr(Defaults(), name) <= high, name


def test_a_bad_default_is_reported_with_the_other_problems(sat_folder):
    (sat_folder / "defaults.csv").write_text("key,value\nweight_explicit,7\n")
    keywords = sat_folder / "concept_keywords.csv"
    keywords.write_text(
        keywords.read_text() + "premium,en,bonus,primary,1.5,fuzzy,,,,\n", encoding="utf-8"
    )
    with pytest.raises(SatelliteError) as err:
        load_satellites(sat_folder)
    reasons = [c["reason"] for c in err.value.failure_cases]
    assert any("weight_explicit must be" in r for r in reasons)
    assert any("must be a number in (0, 1]" in r for r in reasons)
