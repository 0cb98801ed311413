"""The dispatch plan cascades concept → answer type → answer shape → project defaults."""

import polars as pl
import pytest
from conftest import FIXTURES

from quaestio import load_satellites, parse_question
from quaestio.analysis.dispatch import dispatch_plan
from quaestio.analysis.draft import Draft
from quaestio.analysis.text import tokenize


def _plan(sats, *, concepts=(), answer_type="text", answer_shape="single", **columns):
    draft = Draft(question_id="q", original="q", sats=sats, tokens=tokenize("q"))
    draft.concepts = list(concepts)
    draft.columns.update(answer_type=answer_type, answer_shape=answer_shape, **columns)
    dispatch_plan(draft)
    return draft


@pytest.fixture(scope="module")
def sats(tiny_sats):
    concept = pl.DataFrame(
        {
            "concept": ["fleet_policy"],
            "definition": ["Cover for vehicles."],
            "chunk_strategy": ["combined"],
            "retrieval_k": ["12"],
            "suggested_model": ["big-model"],
        }
    )
    model = pl.DataFrame(
        {"answer_type": ["iban"], "description": ["IBAN"], "default_model": ["small-model"]}
    )
    return load_satellites(
        FIXTURES / "satellites", extra={"concepts": concept, "answer_types": model}, override=True
    )


def test_single_fact_reads_sequentially_with_the_shape_k(sats):
    draft = _plan(sats, answer_shape="single")
    assert (draft.columns["chunk_strategy"], draft.columns["retrieval_k"]) == ("sequential", 3)
    assert draft.columns["suggested_model"] is None
    assert draft.rules_fired == ["answer_shapes:single.chunk_strategy", "answer_shapes:single.k"]


@pytest.mark.parametrize("shape, k", [("listing", 10), ("table", 10), ("tree", 15)])
def test_listings_tables_and_trees_combine_passages(sats, shape, k):
    draft = _plan(sats, answer_shape=shape)
    assert (draft.columns["chunk_strategy"], draft.columns["retrieval_k"]) == ("combined", k)


def test_concept_override_beats_type_and_shape(sats):
    draft = _plan(sats, concepts=["premium", "fleet_policy"], answer_type="iban")
    assert draft.columns["chunk_strategy"] == "combined"
    assert draft.columns["retrieval_k"] == 12
    assert draft.columns["suggested_model"] == "big-model"
    assert "concepts:fleet_policy.retrieval_k" in draft.rules_fired


def test_answer_type_model_when_no_concept_names_one(sats):
    draft = _plan(sats, answer_type="iban")
    assert draft.columns["suggested_model"] == "small-model"
    assert "answer_types:iban.default_model" in draft.rules_fired


def test_project_defaults_are_the_last_resort(sat_folder):
    (sat_folder / "answer_shapes.csv").write_text(
        "answer_shape,description,chunk_strategy,k,answer_context\nsingle,one fact,,,paragraph\n"
    )
    (sat_folder / "defaults.csv").write_text(
        "key,value\nretrieval_k,7\nchunk_strategy,combined\nsuggested_model,tiny\n"
    )
    draft = _plan(load_satellites(sat_folder))
    assert (
        draft.columns["chunk_strategy"],
        draft.columns["retrieval_k"],
        draft.columns["suggested_model"],
    ) == ("combined", 7, "tiny")
    assert "defaults:suggested_model" in draft.rules_fired


def test_activations_follow_the_other_columns(sats):
    draft = _plan(
        sats,
        pages_hint=[3],
        layout_hint="table",
        decomposition_pattern="independent",
        suggested_clarification=None,
    )
    assert draft.columns["activations"] == ["page_filter", "layout_table", "multi_query"]


def test_parsed_row_carries_a_dispatch_plan(tiny_sats):
    row = parse_question('What is the "premium" in Germany?', tiny_sats)
    assert row.dispatch.retrieval_k is not None and row.dispatch.chunk_strategy
    assert row.dispatch.activations[:2] == ["exact_terms", "dictionary_expansion"]
