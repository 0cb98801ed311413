"""One declarative spec per satellite table, and vectorized validation against it.

Validation never stops at the first problem: every bad cell of every table is collected,
with its source file, row and column, so an analyst fixes a folder in one pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import polars as pl
import regex

from ..types import AnswerContext, AnswerShape, DecompositionPattern, DetectContext, LayoutHint

ID_PATTERN = r"^[a-z][a-z0-9_]*$"
LANGUAGE_PATTERN = r"^([a-z]{2,3}|\*)$"
VALUE_PARSERS = ("none", "amount", "date", "percentage", "number", "duration", "iban",
                 "email", "phone", "url", "boolean", "text")
VALIDATORS = ("iban_mod97", "date_exists", "luhn")
CHUNK_STRATEGIES = ("sequential", "combined")
# What a `date` cue row recognizes (quaestio.analysis.dates): a date read from its groups that
# stands on its own ("date") or needs a range phrase around it ("when": a plain year, a month),
# a fixed quarter or half, a calendar period relative to today, or `n` units back from today.
DATE_KINDS = ("date", "when", "q1", "q2", "q3", "q4", "h1", "h2") + tuple(
    f"{unit}{offset:+d}" for unit in ("day", "week", "month", "quarter", "year")
    for offset in (-1, 0, 1)) + tuple(f"past_{unit}s" for unit in ("day", "week", "month", "year"))
# The cue families the analysis steps read, and what a row's `target` may be in each: the
# name of a table whose key it must be, a tuple of allowed values, or None (free or empty).
# A family that no step reads would be dead rows, so an unknown family is rejected at load.
CUE_FAMILIES: dict[str, str | tuple[str, ...] | None] = {
    "explicit_quote": None,
    "explicit_list": ("list", "marker"),
    "explicit_list_end": None,
    "answer_type": "answer_types",
    "answer_type_concept": None,
    "answer_shape": tuple(m.value for m in AnswerShape),
    "layout": tuple(m.value for m in LayoutHint),
    "section": None,
    "page": None,
    "sheet": None,
    "slide": None,
    "document_version": None,
    "detect_context": tuple(m.value for m in DetectContext),
    "answer_context": tuple(m.value for m in AnswerContext),
    "need_summary": None,
    "date_range": None,
    "party": None,
    "date": DATE_KINDS,
    "month": tuple(str(month) for month in range(1, 13)),
    "date_target": ("document",),  # the date range qualifies the documents' own date
    "compound": None,
    "decomposition": tuple(m.value for m in DecompositionPattern),
    "deictic": None,
    "negative": None,  # "not to be confused with X", "other than X": group `term` is X
    "clarification": None,
    "decomposition_template": None,
    "clarification_prompt": None,
}


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = "str"  # str, id, enum, float, int, bool, date, language, regex
    required: bool = False
    choices: tuple[str, ...] = ()
    low: float | None = None  # exclusive lower bound for float, inclusive for int
    high: float | None = None
    default: Any = None
    regex_flags: int = regex.V0


@dataclass(frozen=True)
class ForeignKey:
    column: str
    table: str
    target: str
    when: Callable[[pl.DataFrame], pl.Series] | None = None


@dataclass(frozen=True)
class TableSpec:
    name: str
    key: tuple[str, ...]
    columns: tuple[Column, ...]
    foreign_keys: tuple[ForeignKey, ...] = ()
    description: str = ""
    regex_flags_from: str | None = None  # a bool column that makes a pattern case-sensitive

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]


def _enum(e) -> tuple[str, ...]:
    return tuple(m.value for m in e)


SPECS: dict[str, TableSpec] = {s.name: s for s in (
    TableSpec("concepts", ("concept",), (
        Column("concept", "id", required=True),
        Column("definition", required=True),
        Column("doc_family"),
        Column("scope_kind", "enum", choices=("jurisdiction", "party", "currency", "section",
                                              "date", "custom")),
        Column("answer_type", "id"),
        Column("suggested_model"),
        Column("chunk_strategy", "enum", choices=CHUNK_STRATEGIES),
        Column("retrieval_k", "int", low=1, high=1000),
    ), (ForeignKey("answer_type", "answer_types", "answer_type"),),
        "One row per concept of the expert dictionary."),
    TableSpec("concept_keywords", ("concept", "language", "keyword"), (
        Column("concept", "id", required=True),
        Column("language", "language", required=True),
        Column("keyword", required=True),
        Column("keyword_priority", "enum", choices=("primary", "secondary"), default="secondary"),
        Column("weight", "float", required=True, low=0.0, high=1.0),
        Column("match", "enum", choices=("exact", "fuzzy", "cased"), default="fuzzy"),
        Column("status", "enum", choices=("validated", "candidate", "rejected"),
               default="validated"),
        Column("source", "enum", choices=("expert", "closed_set", "discovery"), default="expert"),
        Column("added_by"),
        Column("added_at", "date"),
    ), (ForeignKey("concept", "concepts", "concept"),),
        "Every variant of every concept, in every language."),
    TableSpec("answer_types", ("answer_type",), (
        Column("answer_type", "id", required=True),
        Column("description", required=True),
        Column("value_parser", "enum", choices=VALUE_PARSERS, default="none"),
        Column("output_schema_ref"),
        Column("default_model"),
        Column("detect_context", "enum", choices=_enum(DetectContext), default="sentence"),
        Column("answer_context", "enum", choices=_enum(AnswerContext), default="paragraph"),
    ), (), "The open registry of answer types."),
    TableSpec("answer_type_patterns", ("pattern_id",), (
        Column("pattern_id", "id", required=True),
        Column("answer_type", "id", required=True),
        Column("language", "language", default="*"),
        Column("pattern", "regex", required=True, regex_flags=regex.IGNORECASE),
        Column("validator", "enum", choices=VALIDATORS),
        Column("description"),
        # A fragment is only used inside other rows, as <pattern_id>; it is never scanned alone.
        Column("role", "enum", choices=("match", "fragment"), default="match"),
    ), (ForeignKey("answer_type", "answer_types", "answer_type"),),
        "Regex patterns that confirm an answer type in retrieved text."),
    TableSpec("answer_shapes", ("answer_shape",), (
        Column("answer_shape", "enum", required=True, choices=_enum(AnswerShape)),
        Column("description", required=True),
        # Left empty, these fall through to the project `defaults` rows.
        Column("chunk_strategy", "enum", choices=CHUNK_STRATEGIES),
        Column("k", "int", low=1, high=1000),
        Column("answer_context", "enum", choices=_enum(AnswerContext), default="paragraph"),
    ), (), "The closed set of answer shapes and their dispatch defaults."),
    TableSpec("cues", ("cue_id",), (
        Column("cue_id", "id", required=True),
        Column("family", "enum", required=True, choices=tuple(CUE_FAMILIES)),
        Column("target"),
        Column("language", "language", default="*"),
        Column("pattern", "regex", required=True, regex_flags=regex.IGNORECASE),
        Column("weight", "float", low=0.0, high=1.0, default=1.0),
    ), (), "The offline rules, as rows: a pattern, the family it belongs to, what it points to."),
    TableSpec("anchors", ("anchor_id",), (
        Column("anchor_id", "id", required=True),
        Column("pattern", "regex", required=True),
        Column("case_sensitive", "bool", default=True),
        Column("description"),
        Column("weight", "float", low=0.0, high=1.0, default=0.9),
    ), (), "High-signal literal tokens: article numbers, standards, regulations, years, ids.",
        regex_flags_from="case_sensitive"),
    TableSpec("stopwords", ("language", "word"), (
        Column("language", "language", required=True),
        Column("word", required=True),
        Column("kind", "enum", choices=("function", "query"), default="function"),
    ), (), "Words that carry no topic; also the evidence for offline language detection."),
    TableSpec("defaults", ("key",), (
        Column("key", required=True),
        Column("value"),  # empty means "none" for text settings
        Column("description"),
    ), (), "Project-level settings that analysts tune (weights, thresholds)."),
)}

TABLES: tuple[str, ...] = tuple(SPECS)


def _case(source: str, table: str, row: int | None, column: str | None, value: Any,
          reason: str) -> dict[str, Any]:
    return {"source": source, "table": table, "row": row, "column": column,
            "value": value, "reason": reason}


def validate_table(spec: TableSpec, frame: pl.DataFrame) -> tuple[pl.DataFrame, list[dict]]:
    """Check and type one table; `frame` holds string columns plus `_source` and `_row`.

    Returns the typed frame (string columns cast to their kinds, defaults filled) and the
    failure cases. Foreign keys and cross-table checks are done by `validate_links`.
    """
    failures: list[dict] = []
    present = set(frame.columns)
    for col in spec.columns:
        if col.name not in present:
            if col.required:
                for src in frame["_source"].unique(maintain_order=True).to_list():
                    failures.append(_case(src, spec.name, None, col.name, None,
                                          "required column is missing"))
            frame = frame.with_columns(pl.lit(None, dtype=pl.String).alias(col.name))
    unknown = present - set(spec.column_names) - {"_source", "_row"}
    for name in sorted(unknown):
        failures.append(_case(frame["_source"][0], spec.name, None, name, None,
                              f"unknown column; expected some of {spec.column_names}"))
    if failures:
        return frame, failures

    frame = frame.with_columns(pl.col(c.name).cast(pl.String).str.strip_chars()
                               .replace("", None) for c in spec.columns)
    typed = []
    for col in spec.columns:
        expr, bad, reason = _check(col)
        raw = pl.col(col.name)
        if col.required:
            failures += _collect(frame, spec, col.name, raw.is_null(), "value is required")
        if bad is not None:
            failures += _collect(frame, spec, col.name, raw.is_not_null() & bad, reason)
        if col.kind == "regex":
            failures += _regex_failures(frame, spec, col)
        filled = expr if col.default is None else expr.fill_null(pl.lit(col.default))
        typed.append(filled.alias(col.name))
    frame = frame.with_columns(typed)
    dupes = frame.filter(pl.struct(list(spec.key)).is_duplicated())
    for rec in dupes.iter_rows(named=True):
        key = {k: rec[k] for k in spec.key}
        failures.append(_case(rec["_source"], spec.name, rec["_row"], ",".join(spec.key),
                              key, "duplicate key"))
    return frame, failures


def _check(col: Column) -> tuple[pl.Expr, pl.Expr | None, str]:
    raw = pl.col(col.name)
    if col.kind == "float":
        value = raw.cast(pl.Float64, strict=False)
        bad = value.is_null() | (value <= col.low) | (value > col.high)
        return value, bad, f"must be a number in ({col.low:g}, {col.high:g}]"
    if col.kind == "int":
        value = raw.cast(pl.Int64, strict=False)
        bad = value.is_null() | (value < col.low) | (value > col.high)
        return value, bad, f"must be an integer in [{col.low:g}, {col.high:g}]"
    if col.kind == "bool":
        lowered = raw.str.to_lowercase()
        value = lowered.replace_strict({"true": True, "1": True, "yes": True, "false": False,
                                        "0": False, "no": False}, default=None,
                                       return_dtype=pl.Boolean)
        return value, value.is_null(), "must be true or false"
    if col.kind == "date":
        value = raw.str.to_date("%Y-%m-%d", strict=False)
        return value, value.is_null(), "must be a date written YYYY-MM-DD"
    if col.kind == "enum":
        return raw, ~raw.is_in(col.choices), f"must be one of {', '.join(col.choices)}"
    if col.kind == "id":
        return raw, ~raw.str.contains(ID_PATTERN), "must be snake_case ASCII (a-z, 0-9, _)"
    if col.kind == "language":
        return raw, ~raw.str.contains(LANGUAGE_PATTERN), "must be an ISO 639 code or *"
    return raw, None, ""


def _collect(frame: pl.DataFrame, spec: TableSpec, column: str, mask: pl.Expr,
             reason: str) -> list[dict]:
    bad = frame.filter(mask).select("_source", "_row", column)
    return [_case(s, spec.name, r, column, v, reason) for s, r, v in bad.iter_rows()]


def compile_pattern(pattern: str, flags: int = 0) -> regex.Pattern:
    return regex.compile(pattern, flags | regex.V0)


def pattern_flags(spec: TableSpec, col: Column, record: dict[str, Any]) -> int:
    flags = col.regex_flags
    if spec.regex_flags_from and not _truthy(record.get(spec.regex_flags_from), True):
        flags |= regex.IGNORECASE
    return flags


def _truthy(value: Any, default: bool) -> bool:
    if value is None:
        return default
    return value if isinstance(value, bool) else str(value).lower() in ("true", "1", "yes")


def _regex_failures(frame: pl.DataFrame, spec: TableSpec, col: Column) -> list[dict]:
    failures = []
    for rec in frame.iter_rows(named=True):
        pattern = rec[col.name]
        if pattern is None:
            continue
        try:
            compiled = compile_pattern(pattern, pattern_flags(spec, col, rec))
        except regex.error as exc:
            failures.append(_case(rec["_source"], spec.name, rec["_row"], col.name, pattern,
                                  f"regex does not compile: {exc}"))
            continue
        if compiled.search(""):
            failures.append(_case(rec["_source"], spec.name, rec["_row"], col.name, pattern,
                                  "regex matches the empty string, so it would match anywhere"))
    return failures


def validate_links(tables: dict[str, pl.DataFrame]) -> list[dict]:
    """Foreign keys across tables, checked once every table is typed."""
    failures = _cue_target_failures(tables)
    for spec in SPECS.values():
        frame = tables[spec.name]
        for fk in spec.foreign_keys:
            known = tables[fk.table][fk.target].drop_nulls().unique()
            mask = pl.col(fk.column).is_not_null() & ~pl.col(fk.column).is_in(known.implode())
            failures += _collect(frame, spec, fk.column, mask,
                                 f"unknown {fk.target}: not a row of {fk.table}")
    return failures


def _cue_target_failures(tables: dict[str, pl.DataFrame]) -> list[dict]:
    failures = []
    for rec in tables["cues"].iter_rows(named=True):
        allowed = CUE_FAMILIES.get(rec["family"])
        target = rec["target"]
        if allowed is None:
            continue
        if isinstance(allowed, str):
            known = tables[allowed][SPECS[allowed].key[0]].to_list()
            if target not in known:
                failures.append(_case(rec["_source"], "cues", rec["_row"], "target", target,
                                      f"unknown {SPECS[allowed].key[0]}: not a row of "
                                      f"{allowed}"))
        elif target not in allowed:
            failures.append(_case(rec["_source"], "cues", rec["_row"], "target", target,
                                  f"a {rec['family']} cue targets one of "
                                  f"{', '.join(allowed)}"))
    return failures
