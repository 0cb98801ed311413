"""Request and response bodies (the OpenAPI spec is generated from these)."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..schema import FAMILIES
from ..types import ParsedQuestion


def _flat_row():
    """question_df's columns as one flat model, typed from the package's own row models."""
    fields: dict[str, Any] = {}
    for name, info in ParsedQuestion.model_fields.items():
        family = FAMILIES.get(name)
        for n, f in family.model_fields.items() if family else [(name, info)]:
            fields[n] = (Optional[f.annotation], None)  # noqa: UP045 (a runtime type, not a hint)
    return create_model("QuestionRow", __config__=ConfigDict(extra="allow"), **fields)


QuestionRow = _flat_row()


class ParseOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    toc: list[str] | None = Field(None, description="Section titles of the target document")
    scope: dict[str, Any] | None = Field(
        None, description='Filters the caller knows, e.g. {"jurisdictions": ["FR"]}'
    )
    context: list[str] | None = Field(None, description="Earlier turns, latest last")
    parties: list[str] | None = None
    language: str | None = Field(None, pattern=r"^[a-z]{2,3}$")
    llm: bool = Field(False, description="Parse with the configured LLM (else offline)")


class ParseRequest(ParseOptions):
    question: str | None = Field(None, description="One question (or use `questions`)")
    questions: list[str | None] | None = Field(
        None, description="A batch; each input gives exactly one row, bad ones an error row"
    )


class ParseResponse(BaseModel):
    rows: list[QuestionRow]  # type: ignore[valid-type]


class FunnelOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    first_pass: int | None = Field(None, ge=1, le=1000)
    threshold: float | None = None
    reranker: str | None = Field(None, pattern=r"^(bi-encoder)$")
    floor: float | None = None
    cap: int | None = Field(None, ge=1, le=1000)
    siblings: bool | None = None


class SearchRequest(ParseOptions):
    questions: list[str | None] | None = Field(None, description="Parsed first")
    rows: list[dict[str, Any]] | None = Field(None, description="question_df records")
    backend: str | None = Field(None, description="A registered backend; None: dispatch")
    k: int = Field(5, ge=1, le=100)
    funnel: FunnelOptions | None = None
    filters: bool = True
    confirm: bool = Field(False, description="Add the confirmation verdicts and values")


class SearchResponse(BaseModel):
    rows: list[QuestionRow]  # type: ignore[valid-type]
    hits: list[dict[str, Any]]
    verdicts: list[dict[str, Any]] | None = None
    answers: list[dict[str, Any]] | None = None


class TurnRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(..., min_length=1)
    conversation_id: str | None = Field(None, pattern=r"^[0-9a-f]{32}$")
    toc: list[str] | None = None
    scope: dict[str, Any] | None = None
    parties: list[str] | None = None
    language: str | None = Field(None, pattern=r"^[a-z]{2,3}$")
    llm: bool = False


class TurnAccepted(BaseModel):
    conversation_id: str
    turn: int
    events: str = Field(..., description="The URL of the turn's event stream")


class Conversation(BaseModel):
    conversation_id: str
    turns: list[dict[str, Any]]


class ReloadResult(BaseModel):
    reloaded: bool
    version: str | None = None
    failures: list[dict[str, Any]] = []
