"""The loader's validation, scoped to what an edit touched, so it can run as the analyst types.

`load_satellites` compiles every regex of every table (hundreds of cue rows: seconds). An edit
changes a few rows, and the rest of the folder was valid when it loaded, so this runs the
loader's own checks (`validate_table`, `validate_links`, `parse_defaults`) on each changed
table in full except for the regex compilation, which runs on the changed rows only. Two
checks are added on top: a keyword that differs from another of its concept and language
only in case or accents (as `quaestio admit` refuses), and a regex that compiles but runs
away on a long input.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import polars as pl
import regex

from ..analysis.text import fold_phrase
from ..curation.folder import _case, _unique
from ..errors import SatelliteError
from ..satellites import SPECS, TABLES, Satellites, load_satellites
from ..satellites.defaults import parse_defaults
from ..satellites.schemas import compile_pattern, pattern_flags, validate_links, validate_table
from .store import Snapshot, TableFile

_NO_REGEX = {
    name: dataclasses.replace(
        spec,
        columns=tuple(
            dataclasses.replace(c, kind="str") if c.kind == "regex" else c for c in spec.columns
        ),
    )
    for name, spec in SPECS.items()
}
PROBE_LENGTH = 5000
PROBE_BUDGET_S = 0.1  # a linear pattern scans 5,000 characters in microseconds


def with_positions(files: list[TableFile]) -> pl.DataFrame:
    """A table's files concatenated, each row labelled with its file and line (as the loader)."""
    frames = [
        tf.frame.with_columns(
            pl.lit(tf.name).alias("_source"),
            (pl.int_range(pl.len(), dtype=pl.Int64) + (2 if tf.editable else 0)).alias("_row"),
        )
        for tf in files
    ]
    if not frames:
        return pl.DataFrame(schema={"_source": pl.String, "_row": pl.Int64})
    return pl.concat(frames, how="diagonal")


def check(
    snap: Snapshot, files: dict[str, list[TableFile]], changed: dict[str, set[tuple[str, int]]]
) -> tuple[Satellites | None, list[dict]]:
    """Validate the tables in `files` (every file of each changed table) against the snapshot.

    Args:
        snap: The folder as it is (its tables loaded and valid).
        files: table -> its files after the edit.
        changed: table -> the (file, line) of every added or edited row.

    Returns:
        The satellites after the edit (None when anything failed) and the failure cases, in
        the loader's shape (source = file name, row = line).
    """
    failures: list[dict] = []
    typed: dict[str, pl.DataFrame] = {}
    for table, table_files in files.items():
        spec = SPECS[table]
        frame = with_positions(table_files)
        typed[table], problems = validate_table(_NO_REGEX[table], frame)
        failures += problems
        if problems and any(p["row"] is None for p in problems):
            continue  # a missing or unknown column: the rows cannot be typed
        rows = changed.get(table, set())
        mine = (
            frame.filter(
                pl.struct("_source", "_row").map_elements(
                    partial(_is_changed, rows=rows), return_dtype=pl.Boolean
                )
            )
            if rows
            else frame.clear()
        )
        if any(c.kind == "regex" for c in spec.columns) and mine.height:
            _, own = validate_table(spec, mine)
            regex_cols = {c.name for c in spec.columns if c.kind == "regex"}
            failures += [p for p in own if p["column"] in regex_cols]
            failures += _runaway(spec, mine)
        if table == "concept_keywords" and mine.height:
            failures += _folded_duplicates(typed[table], rows)
        if table == "defaults" and not problems:
            try:
                parse_defaults(typed[table])
            except SatelliteError as exc:
                failures += exc.failure_cases
    if failures:
        return None, _unique(failures)
    links = {t: typed[t] if t in typed else _positioned(snap, t) for t in TABLES}
    failures += validate_links(links)
    if failures:
        return None, _unique(failures)
    tables = {
        t: links[t].drop("_source", "_row") if t in typed else snap.loaded().tables[t]
        for t in TABLES
    }
    origins = {
        t: tuple(tf.name for tf in files[t]) if t in files else snap.loaded().origins[t]
        for t in TABLES
    }
    new = Satellites(tables, origins)
    carry_caches(snap.loaded(), new, set(files))
    return new, []


def check_full(
    snap: Snapshot, files: dict[str, list[TableFile]]
) -> tuple[Satellites | None, list[dict]]:
    """The whole loader on the folder with the edited files: for a folder that does not load
    as it is, so that its broken rows can be fixed here."""
    from ..curation.folder import staged

    names = {tf.name for table_files in files.values() for tf in table_files}
    with staged(snap.folder, skip=names) as view:
        for table_files in files.values():
            for tf in table_files:
                tf.frame.write_csv(view / tf.name)
        try:
            return load_satellites(view), []
        except SatelliteError as exc:
            prefix = str(view) + "/"
            return None, [
                {**c, "source": str(c["source"]).removeprefix(prefix)} for c in exc.failure_cases
            ]


def _positioned(snap: Snapshot, table: str) -> pl.DataFrame:
    """A loaded table with the file and line of each row, as `validate_links` reports them."""
    frame = snap.loaded().tables[table]
    pos = with_positions(snap.files.get(table, []))
    if pos.height == frame.height:
        return frame.with_columns(pos["_source"], pos["_row"])
    return frame.with_columns(
        pl.lit(f"bundled:{table}").alias("_source"), pl.lit(None, pl.Int64).alias("_row")
    )


# Compiled artefacts that depend on one table only: a new version of the satellites that
# keeps that table unchanged can keep them (compiling the cue rows costs seconds).
_CACHES_OF = {
    "cues": (
        "cue_rules",
        "language_rules:",
        "scope_date_rules",
        "decomposition_rules",
        "union_rules:",
    ),
    "anchors": ("anchor_rules",),
}


def carry_caches(old: Satellites, new: Satellites, changed: set[str]) -> None:
    for table, prefixes in _CACHES_OF.items():
        if table in changed:
            continue
        for key, value in old._cache.items():
            if key.startswith(prefixes):
                new._cache.setdefault(key, value)


def runaway_reason(pattern: str, flags: int = 0) -> str | None:
    """Why a compiling regex is unsafe on long input (catastrophic backtracking), or None."""
    try:
        compiled = compile_pattern(pattern, flags)
    except regex.error:
        return None
    letters = sorted({c.lower() for c in pattern if c.isalpha()})[:6]
    for unit in ["a", "1", " ", "a ", "1 ", "-", ".", *letters]:
        probe = unit * (PROBE_LENGTH // len(unit)) + "!"
        try:
            compiled.search(probe, timeout=PROBE_BUDGET_S)
        except TimeoutError:
            return (
                f"regex runs away (catastrophic backtracking): searching {len(probe):,} "
                f"characters of {unit!r} takes over {PROBE_BUDGET_S * 1000:.0f} ms; "
                f"bound the repetitions or remove nested quantifiers"
            )
    return None


def _runaway(spec, frame: pl.DataFrame) -> list[dict]:
    out = []
    for col in (c for c in spec.columns if c.kind == "regex"):
        for rec in frame.iter_rows(named=True):
            pattern = (rec.get(col.name) or "").strip()
            reason = runaway_reason(pattern, pattern_flags(spec, col, rec)) if pattern else None
            if reason:
                out.append(
                    _case(rec["_source"], spec.name, rec["_row"], col.name, pattern, reason)
                )
    return out


def _folded_duplicates(typed: pl.DataFrame, rows: set[tuple[str, int]]) -> list[dict]:
    seen: dict[tuple, list[tuple[str, int, str]]] = {}
    for c, lang, kw, src, line in typed.select(
        "concept", "language", "keyword", "_source", "_row"
    ).iter_rows():
        if kw and c:
            seen.setdefault((c, lang, fold_phrase(kw)), []).append((src, line, kw))
    out = []
    for (c, lang, _), hits in seen.items():
        if len(hits) < 2:
            continue
        for src, line, kw in hits:
            if (src, line) not in rows:
                continue
            other = next(h for h in hits if (h[0], h[1]) != (src, line))
            if other[2] == kw:
                continue  # an exact duplicate key: the loader reports it already
            out.append(
                _case(
                    src,
                    "concept_keywords",
                    line,
                    "keyword",
                    kw,
                    f"differs only in case or accents from {other[2]!r} "
                    f"({other[0]} line {other[1]}) of {c}/{lang}",
                )
            )
    return out


def _is_changed(row: dict, rows: set) -> bool:
    return (row["_source"], row["_row"]) in rows
