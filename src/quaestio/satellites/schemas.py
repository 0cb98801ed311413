"""One declarative spec per satellite table, and vectorized validation against it.

Validation never stops at the first problem: every bad cell of every table is collected,
with its source file, row and column, so an analyst fixes a folder in one pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl
import regex

from ..types import AnswerContext, AnswerShape, DecompositionPattern, DetectContext, LayoutHint
from . import facts

ID_PATTERN = r"^[a-z][a-z0-9_]*$"
LANGUAGE_PATTERN = r"^([a-z]{2,3}|\*)$"
VALUE_PARSERS = (
    "none",
    "amount",
    "date",
    "percentage",
    "number",
    "duration",
    "iban",
    "email",
    "phone",
    "url",
    "boolean",
    "text",
)
VALIDATORS = ("iban_mod97", "date_exists", "luhn")
CHUNK_STRATEGIES = ("sequential", "combined")
# What a `date` cue row recognizes (quaestio.analysis.dates): a date read from its groups that
# stands on its own ("date") or needs a range phrase around it ("when": a plain year, a month),
# a fixed quarter or half, a calendar period relative to today, or `n` units back from today.
DATE_KINDS = (
    ("date", "when", "q1", "q2", "q3", "q4", "h1", "h2")
    + tuple(
        f"{unit}{offset:+d}"
        for unit in ("day", "week", "month", "quarter", "year")
        for offset in (-1, 0, 1)
    )
    + tuple(f"past_{unit}s" for unit in ("day", "week", "month", "year"))
)
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


# The kinds of prompt_parts rows. Every kind but `format` is needed once at least, so that a
# folder cannot silently drop the instruction to say "not found" rather than guess (`gaps`).
# `not_found` is the sentence the offline answer gives when nothing is confirmed.
PROMPT_KINDS = ("role", "task", "gaps", "tone", "not_found", "format")
PROMPT_INTENTS = ("navigational", "conceptual")


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


def _not_bundled(frame: pl.DataFrame) -> pl.Series:
    """Rows an analyst wrote: bundled rows about concepts a user's own folder replaced are
    inert, not errors (the folder's concepts table need not hold the bundled concepts)."""
    return ~frame["_source"].str.starts_with("bundled:")


def _enum(e) -> tuple[str, ...]:
    return tuple(m.value for m in e)


SPECS: dict[str, TableSpec] = {
    s.name: s
    for s in (
        TableSpec(
            "concepts",
            ("concept",),
            (
                Column("concept", "id", required=True),
                Column("definition", required=True),
                Column("doc_family"),
                Column(
                    "scope_kind",
                    "enum",
                    choices=("jurisdiction", "party", "currency", "section", "date", "custom"),
                ),
                Column("answer_type", "id"),
                Column("suggested_model"),
                Column("chunk_strategy", "enum", choices=CHUNK_STRATEGIES),
                Column("retrieval_k", "int", low=1, high=1000),
            ),
            (ForeignKey("answer_type", "answer_types", "answer_type"),),
            "One row per concept of the expert dictionary.",
        ),
        TableSpec(
            "concept_keywords",
            ("concept", "language", "keyword"),
            (
                Column("concept", "id", required=True),
                Column("language", "language", required=True),
                Column("keyword", required=True),
                Column(
                    "keyword_priority",
                    "enum",
                    choices=("primary", "secondary"),
                    default="secondary",
                ),
                Column("weight", "float", required=True, low=0.0, high=1.0),
                Column("match", "enum", choices=("exact", "fuzzy", "cased"), default="fuzzy"),
                Column(
                    "status",
                    "enum",
                    choices=("validated", "candidate", "rejected"),
                    default="validated",
                ),
                Column(
                    "source",
                    "enum",
                    choices=("expert", "closed_set", "discovery"),
                    default="expert",
                ),
                Column("added_by"),
                Column("added_at", "date"),
            ),
            (ForeignKey("concept", "concepts", "concept"),),
            "Every variant of every concept, in every language.",
        ),
        TableSpec(
            "answer_types",
            ("answer_type",),
            (
                Column("answer_type", "id", required=True),
                Column("description", required=True),
                Column("value_parser", "enum", choices=VALUE_PARSERS, default="none"),
                Column("output_schema_ref"),
                Column("default_model"),
                Column("detect_context", "enum", choices=_enum(DetectContext), default="sentence"),
                Column(
                    "answer_context", "enum", choices=_enum(AnswerContext), default="paragraph"
                ),
            ),
            (),
            "The open registry of answer types.",
        ),
        TableSpec(
            "answer_type_patterns",
            ("pattern_id",),
            (
                Column("pattern_id", "id", required=True),
                Column("answer_type", "id", required=True),
                Column("language", "language", default="*"),
                Column("pattern", "regex", required=True, regex_flags=regex.IGNORECASE),
                Column("validator", "enum", choices=VALIDATORS),
                Column("description"),
                # A fragment is only used inside other rows, as <pattern_id>; never scanned alone.
                Column("role", "enum", choices=("match", "fragment"), default="match"),
            ),
            (ForeignKey("answer_type", "answer_types", "answer_type"),),
            "Regex patterns that confirm an answer type in retrieved text.",
        ),
        TableSpec(
            "answer_shapes",
            ("answer_shape",),
            (
                Column("answer_shape", "enum", required=True, choices=_enum(AnswerShape)),
                Column("description", required=True),
                # Left empty, these fall through to the project `defaults` rows.
                Column("chunk_strategy", "enum", choices=CHUNK_STRATEGIES),
                Column("k", "int", low=1, high=1000),
                Column(
                    "answer_context", "enum", choices=_enum(AnswerContext), default="paragraph"
                ),
            ),
            (),
            "The closed set of answer shapes and their dispatch defaults.",
        ),
        TableSpec(
            "head_nouns",
            ("language", "kind", "noun"),
            (
                Column("language", "language", required=True),
                # The kind a cue pattern names as <head_nouns:KIND> (person, organization...).
                Column("kind", "id", required=True),
                Column("noun", required=True),
                Column("description"),
            ),
            (),
            'Nouns that name what a question asks for ("what author", "quel auteur"): '
            "the word lists cue patterns read as <head_nouns:KIND>.",
        ),
        TableSpec(
            "cues",
            ("cue_id",),
            (
                Column("cue_id", "id", required=True),
                Column("family", "enum", required=True, choices=tuple(CUE_FAMILIES)),
                Column("target"),
                Column("language", "language", default="*"),
                Column("pattern", "regex", required=True, regex_flags=regex.IGNORECASE),
                Column("weight", "float", low=0.0, high=1.0, default=1.0),
            ),
            (),
            "The offline rules, as rows: a pattern, the family it belongs to, what it points to.",
        ),
        TableSpec(
            "anchors",
            ("anchor_id",),
            (
                Column("anchor_id", "id", required=True),
                Column("pattern", "regex", required=True),
                Column("case_sensitive", "bool", default=True),
                Column("description"),
                Column("weight", "float", low=0.0, high=1.0, default=0.9),
            ),
            (),
            "High-signal literal tokens: article numbers, standards, regulations, years, ids.",
            regex_flags_from="case_sensitive",
        ),
        TableSpec(
            "stopwords",
            ("language", "word"),
            (
                Column("language", "language", required=True),
                Column("word", required=True),
                Column("kind", "enum", choices=("function", "query"), default="function"),
            ),
            (),
            "Words that carry no topic; also the evidence for offline language detection.",
        ),
        TableSpec(
            "concept_sections",
            ("concept", "language", "section"),
            (
                Column("concept", "id", required=True),
                Column("language", "language", default="*"),
                Column("section", required=True),
                Column("description"),
            ),
            (ForeignKey("concept", "concepts", "concept", when=_not_bundled),),
            "The section titles a concept usually sits under: a toc_section_hint without a TOC.",
        ),
        TableSpec(
            "section_pairs",
            ("language", "a", "b"),
            (
                Column("language", "language", default="*"),
                # Each side is a concept (the item names it) or a term in the row's language
                # (the item's words, as lemmas, are the term's).
                Column("a", required=True),
                Column("b", required=True),
                Column("section", required=True),
                Column("description"),
            ),
            (),
            "Two things one section holds together: coordinated, they are one unified question.",
        ),
        TableSpec(
            "defaults",
            ("key",),
            (
                Column("key", required=True),
                Column("value"),  # empty means "none" for text settings
                Column("description"),
            ),
            (),
            "Project-level settings that analysts tune (weights, thresholds).",
        ),
        TableSpec(
            "prompt_parts",
            ("part_id",),
            (
                Column("part_id", "id", required=True),
                Column("kind", "enum", required=True, choices=PROMPT_KINDS),
                Column("target"),  # format rows: an answer shape or an intent (PROMPT_INTENTS)
                Column("language", "language", default="*"),
                Column("text", required=True),
            ),
            (),
            "The grounded-answer prompt, as rows: role, task, gaps, tone, format per shape "
            "and per intent (quaestio.serve compiles them with the hits).",
        ),
    )
}

TABLES: tuple[str, ...] = tuple(SPECS)


def _case(
    source: str, table: str, row: int | None, column: str | None, value: Any, reason: str
) -> dict[str, Any]:
    return {
        "source": source,
        "table": table,
        "row": row,
        "column": column,
        "value": value,
        "reason": reason,
    }


def validate_table(
    spec: TableSpec, frame: pl.DataFrame, parts: list[pl.DataFrame] | None = None
) -> tuple[pl.DataFrame, list[dict]]:
    """Check and type one table; `frame` holds string columns plus `_source` and `_row`.

    `parts`: the frames `frame` was concatenated from, one per file, so that a column
    missing from or unknown to one split file is blamed on that file, once.

    Returns the typed frame (string columns cast to their kinds, defaults filled) and the
    failure cases. Foreign keys and cross-table checks are done by `validate_links`.
    """
    failures: list[dict] = []
    files = [(p["_source"][0], set(p.columns)) for p in parts or () if p.height]
    if not files:
        files = [
            (src, set(frame.columns))
            for src in frame["_source"].unique(maintain_order=True).to_list()
        ]
    for src, present in files:
        for col in spec.columns:
            if col.required and col.name not in present:
                failures.append(
                    _case(src, spec.name, None, col.name, None, "required column is missing")
                )
        for name in sorted(present - set(spec.column_names) - {"_source", "_row"}):
            failures.append(
                _case(
                    src,
                    spec.name,
                    None,
                    name,
                    None,
                    f"unknown column; expected some of {spec.column_names}",
                )
            )
    for col in spec.columns:
        if col.name not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype=pl.String).alias(col.name))
    if failures:
        return frame, failures

    frame = frame.with_columns(
        pl.col(c.name).cast(pl.String).str.strip_chars().replace("", None) for c in spec.columns
    )
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
        failures.append(
            _case(rec["_source"], spec.name, rec["_row"], ",".join(spec.key), key, "duplicate key")
        )
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
        value = lowered.replace_strict(
            {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False},
            default=None,
            return_dtype=pl.Boolean,
        )
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


def _collect(
    frame: pl.DataFrame, spec: TableSpec, column: str, mask: pl.Expr, reason: str
) -> list[dict]:
    bad = frame.filter(mask).select("_source", "_row", column)
    return [_case(s, spec.name, r, column, v, reason) for s, r, v in bad.iter_rows()]


def compile_pattern(pattern: str, flags: int = 0) -> regex.Pattern:
    return facts.compiled(pattern, int(flags))


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
        flags = pattern_flags(spec, col, rec)
        checked = facts.key("checked", pattern, flags)
        if facts.get(checked):  # this very pattern passed every check below in a process before
            continue
        try:
            compiled = compile_pattern(pattern, flags)
        except regex.error as exc:
            failures.append(
                _case(
                    rec["_source"],
                    spec.name,
                    rec["_row"],
                    col.name,
                    pattern,
                    f"regex does not compile: {exc}",
                )
            )
            continue
        if compiled.search(""):
            failures.append(
                _case(
                    rec["_source"],
                    spec.name,
                    rec["_row"],
                    col.name,
                    pattern,
                    "regex matches the empty string, so it would match anywhere",
                )
            )
            continue
        probe = catastrophic_probe(compiled)
        if probe is not None:
            failures.append(
                _case(
                    rec["_source"],
                    spec.name,
                    rec["_row"],
                    col.name,
                    pattern,
                    f"regex backtracks catastrophically (more than "
                    f"{PROBE_TIMEOUT_S * 1000:g} ms on the {len(probe)}-character "
                    f"probe {probe[:12]!r}...): nested repetition or overlapping "
                    f"alternatives such as (a+)+ or (a|a)*; make the inner part "
                    f"possessive (a++) or atomic (?>...)",
                )
            )
            continue
        facts.put(checked, True)
    return failures


PROBE_TIMEOUT_S = 0.1
_PROBE_LENGTH = 30
_PROBE_BASE = "a1 .,-:é"
_REPEATED_GROUP = regex.compile(r"\)(?:[+*]|\{\d*,?\d*\})")


def catastrophic_probe(pattern: regex.Pattern) -> str | None:
    """The adversarial string on which `pattern` runs past `PROBE_TIMEOUT_S`, else None.

    The probes are runs of one character, or of two alternating ones, drawn from the
    pattern's own literal characters and a few of each class (letter, digit, space,
    punctuation), ended by a character that makes the match fail: what makes nested
    repetition and overlapping alternatives try every way of splitting the run. A pattern
    that needs well under a millisecond on real text takes seconds on one of these.
    """
    if not _REPEATED_GROUP.search(pattern.pattern):
        return None  # backtracking explodes only when a group is repeated
    own = [
        c
        for c in dict.fromkeys(pattern.pattern)
        if c.isprintable() and c not in "\\()[]{}?*+|^$<>=!"
    ]
    alphabet = list(dict.fromkeys(_PROBE_BASE + "".join(own)))[:24]
    pairs = list(dict.fromkeys("a 1," + "".join(own[:4])))
    runs = [c * _PROBE_LENGTH for c in alphabet]
    runs += [(a + b) * (_PROBE_LENGTH // 2) for a in pairs for b in pairs if a != b]
    for run in runs:
        try:
            pattern.search(run + "\x00", timeout=PROBE_TIMEOUT_S)
        except TimeoutError:
            return run + "\x00"
    return None


def validate_links(tables: dict[str, pl.DataFrame]) -> list[dict]:
    """Foreign keys across tables, checked once every table is typed."""
    failures = _cue_target_failures(tables) + _prompt_part_failures(tables["prompt_parts"])
    for spec in SPECS.values():
        frame = tables[spec.name]
        for fk in spec.foreign_keys:
            known = tables[fk.table][fk.target].drop_nulls().unique()
            mask = pl.col(fk.column).is_not_null() & ~pl.col(fk.column).is_in(known.implode())
            if fk.when is not None:
                mask = mask & fk.when(frame)
            failures += _collect(
                frame, spec, fk.column, mask, f"unknown {fk.target}: not a row of {fk.table}"
            )
    return failures


def drop_inert_rows(tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Remove the rows that a conditional foreign key let through unchecked (bundled rows
    about concepts the user's own tables do not hold): they could never apply."""
    out = dict(tables)
    for spec in SPECS.values():
        for fk in spec.foreign_keys:
            if fk.when is None:
                continue
            known = out[fk.table][fk.target].drop_nulls().unique()
            out[spec.name] = out[spec.name].filter(
                pl.col(fk.column).is_null() | pl.col(fk.column).is_in(known.implode())
            )
    return out


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
                failures.append(
                    _case(
                        rec["_source"],
                        "cues",
                        rec["_row"],
                        "target",
                        target,
                        f"unknown {SPECS[allowed].key[0]}: not a row of {allowed}",
                    )
                )
        elif target not in allowed:
            failures.append(
                _case(
                    rec["_source"],
                    "cues",
                    rec["_row"],
                    "target",
                    target,
                    f"a {rec['family']} cue targets one of {', '.join(allowed)}",
                )
            )
    return failures


def _prompt_part_failures(frame: pl.DataFrame) -> list[dict]:
    failures = []
    targets = _enum(AnswerShape) + PROMPT_INTENTS
    for rec in frame.iter_rows(named=True):
        if rec["kind"] == "format" and rec["target"] not in targets:
            failures.append(
                _case(
                    rec["_source"],
                    "prompt_parts",
                    rec["_row"],
                    "target",
                    rec["target"],
                    f"a format row targets one of {', '.join(targets)}",
                )
            )
        elif rec["kind"] != "format" and rec["target"]:
            failures.append(
                _case(
                    rec["_source"],
                    "prompt_parts",
                    rec["_row"],
                    "target",
                    rec["target"],
                    f"only format rows have a target, not {rec['kind']} rows",
                )
            )
    present = set(frame["kind"].drop_nulls().to_list()) if frame.height else set()
    for kind in PROMPT_KINDS[:-1]:  # all but format
        if kind not in present:
            source = frame["_source"][0] if frame.height else "prompt_parts"
            failures.append(
                _case(
                    source,
                    "prompt_parts",
                    None,
                    "kind",
                    kind,
                    f"no {kind} row: the answer prompt needs one",
                )
            )
    return failures
