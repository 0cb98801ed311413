"""The pydantic models the LLM must return, and their JSON schemas with the registries injected.

The models check structure and types only (a violation is sent back to the model). Which
values are allowed (answer types, shapes, candidate concepts) comes from the satellites at
call time: the schema's enums are built from their rows, so a new row needs no code or
prompt edit, and `validate.py` checks the reply against the same rows afterwards, because
JSON mode and weak servers do not enforce the schema.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..types import DecompositionPattern, LayoutHint

AMBIGUITY_REASONS = (
    "deictic_reference",
    "ambiguous_concept",
    "missing_object",
    "too_broad",
    "too_short",
)


class _Reply(BaseModel):
    # Extra keys are ignored: small models add commentary fields, which is harmless.
    model_config = ConfigDict(extra="ignore")


# Bounds on the lists, sent in the schema: a small model under a grammar can otherwise
# keep appending items until it runs out of tokens.
MAX_ITEMS = {
    "rewrites": 5,
    "pages_hint": 20,
    "scope_parties": 10,
    "sub_questions": 6,
    "passages": 10,
}
# Likewise for strings (of a field, or of a list's items): small models fall into
# repetition loops inside a string, which only a length bound in the grammar stops.
MAX_LENGTH = {
    "corrected_question": 1000,
    "rewrites": 160,
    "sub_questions": 300,
    "conditional_filter": 300,
    "suggested_clarification": 300,
    "toc_section_hint": 200,
    "document_version": 60,
    "scope_parties": 100,
    "scope_date_from": 10,
    "scope_date_to": 10,
    "passages": 600,
    "concept": 100,
}


class Analysis(_Reply):
    """Every column family of one question, in one reply."""

    corrected_question: str
    rewrites: list[str] = Field(default_factory=list)
    concepts: list[str] = Field(default_factory=list)
    answer_shape: str
    answer_type: str
    pages_hint: list[int] = Field(default_factory=list)
    toc_section_hint: str | None = None
    layout_hint: str = LayoutHint.TEXT.value
    document_version: str | None = None
    need_summary: bool = False
    scope_date_from: str | None = None
    scope_date_to: str | None = None
    scope_parties: list[str] = Field(default_factory=list)
    decomposition_pattern: str = DecompositionPattern.SINGLE.value
    sub_questions: list[str] = Field(default_factory=list)
    conditional_filter: str | None = None
    ambiguity_reason: str | None = None
    suggested_clarification: str | None = None


class Spelling(_Reply):
    corrected_question: str


class Rewrites(_Reply):
    rewrites: list[str]


class ConceptChoice(_Reply):
    concept: str | None


class Hints(_Reply):
    pages_hint: list[int] = Field(default_factory=list)
    toc_section_hint: str | None = None
    layout_hint: str = LayoutHint.TEXT.value
    document_version: str | None = None
    need_summary: bool = False
    scope_date_from: str | None = None
    scope_date_to: str | None = None
    scope_parties: list[str] = Field(default_factory=list)


class DecompositionReply(_Reply):
    decomposition_pattern: str
    sub_questions: list[str] = Field(default_factory=list)
    conditional_filter: str | None = None


class ClarificationReply(_Reply):
    ambiguity_reason: str | None = None
    suggested_clarification: str | None = None


class Passages(_Reply):
    passages: list[str]


def json_schema(
    model: type[BaseModel],
    enums: dict[str, list[str]] | None = None,
    nullable_enums: frozenset[str] = frozenset(("ambiguity_reason",)),
) -> dict:
    """A strict JSON schema of `model` (all keys required, no extras), with `enums[field]`
    restricting a string field or the items of a list field to the registry's values."""
    schema = copy.deepcopy(_strict_schema(model))
    for name, values in (enums or {}).items():
        prop = schema["properties"][name]
        if prop.get("type") == "array":
            prop["items"] = (
                {"type": "string", "enum": list(values)} if values else {"type": "string"}
            )
            # each value at most once; an empty enum is invalid JSON Schema: no item instead
            prop["maxItems"] = len(values)
        elif name in nullable_enums:
            prop.clear()
            prop["anyOf"] = [{"type": "string", "enum": list(values)}, {"type": "null"}]
        else:
            prop.clear()
            prop.update(type="string", enum=list(values))
    return schema


@cache
def _strict_schema(model: type[BaseModel]) -> dict:
    schema = model.model_json_schema()  # ~5 ms: once per model, not once per question
    _strict(schema)
    return schema


def _strict(node: Any) -> None:
    if isinstance(node, dict):
        for key in ("title", "default"):
            node.pop(key, None)
        if node.get("type") == "object" and "properties" in node:
            node["required"] = list(node["properties"])
            node["additionalProperties"] = False
            for name, prop in node["properties"].items():
                if prop.get("type") == "array" and name in MAX_ITEMS:
                    prop["maxItems"] = MAX_ITEMS[name]
                if name in MAX_LENGTH:
                    _bound_strings(prop, MAX_LENGTH[name])
        for value in node.values():
            _strict(value)
    elif isinstance(node, list):
        for value in node:
            _strict(value)


def _bound_strings(prop: dict, length: int) -> None:
    for node in [prop, prop.get("items") or {}, *prop.get("anyOf", ())]:
        if node.get("type") == "string" and "enum" not in node:
            node["maxLength"] = length


def analysis_enums(
    answer_types: list[str], answer_shapes: list[str], candidates: list[str]
) -> dict[str, list[str]]:
    return {
        "answer_type": answer_types,
        "answer_shape": answer_shapes,
        "concepts": candidates,
        "layout_hint": [v.value for v in LayoutHint],
        "decomposition_pattern": [v.value for v in DecompositionPattern],
        "ambiguity_reason": list(AMBIGUITY_REASONS),
    }
