"""The typed row of `question_df`: pydantic models grouped by column family, and their enums.

`ParsedQuestion` is one row. Its fields that are `ColumnFamily` models are flattened into
top-level columns of `question_df` (see `quaestio.schema`), so `qdf.answer_type == "amount"`
works while Python code keeps the grouping (`row.hints.pages_hint`).
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class AnswerShape(StrEnum):
    SINGLE = "single"
    LISTING = "listing"
    TABLE = "table"
    TREE = "tree"
    NESTED_JSON = "nested_json"


class KeywordSource(StrEnum):
    EXPLICIT = "explicit"
    DIRECT = "direct"
    LLM_REWRITE = "llm_rewrite"
    EXPERT_DICTIONARY = "expert_dictionary"
    ANCHOR = "anchor"


class DecompositionPattern(StrEnum):
    SINGLE = "single"
    INDEPENDENT = "independent"
    SEQUENTIAL = "sequential"
    UNIFIED = "unified"
    CONDITIONAL = "conditional"


class LayoutHint(StrEnum):
    TEXT = "text"
    TABLE = "table"
    IMAGE = "image"
    HEADER = "header"


class DetectContext(StrEnum):
    LINE = "line"
    SENTENCE = "sentence"
    PARAGRAPH = "paragraph"


class AnswerContext(StrEnum):
    LINE = "line"
    PARAGRAPH = "paragraph"
    PAGE = "page"
    SECTION = "section"
    CHAPTER = "chapter"
    DOCUMENT = "document"


class ParserMode(StrEnum):
    RULES = "rules"
    LLM = "llm"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class Keyword(_Model):
    """One search term and why it is in the query."""

    text: str
    weight: float = Field(gt=0, le=1)
    source: KeywordSource
    concept: str | None = None
    language: str | None = None
    keyword_priority: str | None = None
    # Terms that stand for the same thing (all variants of one concept) share a group,
    # so retrieval can OR them instead of requiring each.
    semantic_group: str | None = None
    is_regex: bool = False
    span_start: int | None = None
    span_end: int | None = None
    rule_id: str | None = None


class AmbiguousKeyword(_Model):
    """A span of the question that fits several concepts, and how the choice was made."""

    text: str
    span_start: int
    span_end: int
    candidates: list[str]
    scores: list[float]
    chosen: str
    method: str


class SpellingCorrection(_Model):
    original: str
    corrected: str
    span_start: int
    span_end: int
    distance: int
    vocabulary: str  # "dictionary" (a concept keyword) or "language" (general word list)


class ScopeItem(_Model):
    """One scope value and where it came from: "question", "caller" or "context"."""

    name: str
    value: str
    origin: str


class ColumnFamily(_Model):
    """A group of fields that become top-level columns of question_df."""


class StructuralHints(ColumnFamily):
    toc_section_hint: str | None = None
    pages_hint: list[int] = Field(default_factory=list)
    sheets_hint: list[str] = Field(default_factory=list)
    slides_hint: list[int] = Field(default_factory=list)
    layout_hint: LayoutHint = LayoutHint.TEXT
    document_version: str | None = None
    detect_context: DetectContext = DetectContext.SENTENCE
    answer_context: AnswerContext = AnswerContext.PARAGRAPH
    need_summary: bool = False


class ScopeFilters(ColumnFamily):
    scope_sections: list[str] = Field(default_factory=list)
    scope_date_from: dt.date | None = None
    scope_date_to: dt.date | None = None
    scope_parties: list[str] = Field(default_factory=list)
    scope_jurisdictions: list[str] = Field(default_factory=list)
    scope_page_range: list[int] = Field(default_factory=list)
    scope_custom: list[ScopeItem] = Field(default_factory=list)
    # Every value of the scope_* columns with its origin, so a merged scope stays auditable.
    scope_origins: list[ScopeItem] = Field(default_factory=list)


class Decomposition(ColumnFamily):
    decomposition_pattern: DecompositionPattern = DecompositionPattern.SINGLE
    sub_questions: list[str] = Field(default_factory=list)
    conditional_filter: str | None = None


class Clarification(ColumnFamily):
    suggested_clarification: str | None = None
    ambiguity_reason: str | None = None


class DispatchPlan(ColumnFamily):
    chunk_strategy: str | None = None
    suggested_model: str | None = None
    retrieval_k: int | None = None
    activations: list[str] = Field(default_factory=list)


class Provenance(ColumnFamily):
    parser_mode: ParserMode = ParserMode.RULES
    llm_model: str | None = None
    llm_status: str = "off"
    llm_tokens_in: int | None = None
    llm_tokens_out: int | None = None
    latency_ms: float | None = None
    satellites_version: str | None = None
    quaestio_version: str | None = None
    # Ids of the rule rows (cues, concept defaults, satellite defaults) that decided the
    # non-keyword columns, e.g. "cues:type_how_much_en", "concepts:premium.answer_type".
    rules_fired: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    error_code: str | None = None
    error_message: str | None = None


class NegativeHints(ColumnFamily):
    """What the question sets aside ("not to be confused with the deductible"): concepts
    none of whose terms is asked for positively, and the terms themselves."""

    excluded_concepts: list[str] = Field(default_factory=list)
    excluded_terms: list[str] = Field(default_factory=list)


class ParsedQuestion(_Model):
    """One parsed question: one row of `question_df`.

    Families that a later stage fills (answer shape/type, hints, scope, decomposition,
    clarification, dispatch) hold their documented defaults until that stage runs:
    shape `single`, type `text`, no hints, no scope, pattern `single`, no clarification.
    """

    question_id: str
    original_question: str | None
    corrected_question: str | None = None
    language: str | None = None
    spelling_corrections: list[SpellingCorrection] = Field(default_factory=list)
    keywords: list[Keyword] = Field(default_factory=list)
    concepts: list[str] = Field(default_factory=list)
    ambiguous_keywords: list[AmbiguousKeyword] = Field(default_factory=list)
    answer_shape: AnswerShape = AnswerShape.SINGLE
    answer_type: str = "text"
    hints: StructuralHints = Field(default_factory=StructuralHints)
    scope: ScopeFilters = Field(default_factory=ScopeFilters)
    decomposition: Decomposition = Field(default_factory=Decomposition)
    clarification: Clarification = Field(default_factory=Clarification)
    dispatch: DispatchPlan = Field(default_factory=DispatchPlan)
    provenance: Provenance = Field(default_factory=Provenance)
    negation: NegativeHints = Field(default_factory=NegativeHints)

    def keywords_by_source(self, source: KeywordSource | str) -> list[str]:
        """Texts of the keywords that came from one source, in order."""
        return [k.text for k in self.keywords if k.source == source]
