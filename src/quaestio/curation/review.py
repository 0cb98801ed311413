"""The review file, and admission of what the analyst accepted into `concept_keywords`.

Discovery writes candidates to a CSV; the analyst fills `decision` with accept or reject (and
may edit keyword, language, keyword_priority, weight or match); `admit_candidates` validates
every row and appends:

- accepted rows to `concept_keywords.discovery.csv` with status `validated`, source
  `discovery`, who and when;
- rejected rows of a known concept to the same file with status `rejected` (the parser only
  reads `validated` rows), so the dictionary keeps the audit trail and discovery never
  proposes that keyword for that concept again;
- rejected proposals of a new concept (no concept) to `curation/rejected_phrases.csv` beside
  the tables (a sub-folder, which the satellite loader does not read).

Rows left without a decision stay pending and are not written. Nothing is written unless
every decided row is valid.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from ..analysis.text import fold_phrase
from ..errors import SatelliteError
from ..satellites import load_satellites
from .folder import _case, ordered, read_rows, require_table_files, validate_with, write_atomically
from .reports import as_polars

REVIEW_COLUMNS = (
    "decision",
    "kind",
    "concept",
    "language",
    "keyword",
    "keyword_priority",
    "weight",
    "match",
    "proposed_concept",
    "cluster_id",
    "similarity",
    "nearest_keyword",
    "count",
    "docs",
    "cluster_concepts",
    "examples",
)
DISCOVERY_FILE = "concept_keywords.discovery.csv"
REJECTED_FILE = Path("curation") / "rejected_phrases.csv"
ACCEPT = {"accept", "accepted", "a", "yes", "y", "x"}
REJECT = {"reject", "rejected", "r", "no", "n"}


class Admission(NamedTuple):
    """What `admit_candidates` wrote."""

    admitted: pl.DataFrame  # the validated rows added to concept_keywords
    rejected: pl.DataFrame  # rejections remembered (concept_keywords rows + phrases)
    pending: int  # rows without a decision, left for later
    files: list[Path]


def read_review(path: str | Path) -> pl.DataFrame:
    """A review file as strings, exactly as the analyst left it."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such review file: {path}")
    return pl.read_csv(path, infer_schema=False)


def rejected_phrases(folder: str | Path) -> set[tuple[str, str]]:
    """(language, folded phrase) pairs an analyst rejected as new concepts in `folder`."""
    frame = read_rows(Path(folder) / REJECTED_FILE)
    if frame.is_empty():
        return set()
    return {
        (lang or "", fold_phrase(kw or ""))
        for lang, kw in frame.select("language", "keyword").iter_rows()
    }


def admit_candidates(
    review: Any,
    folder: str | Path,
    *,
    added_by: str,
    added_at: dt.date | str | None = None,
    label: str | None = None,
) -> Admission:
    """Validate the decided rows of a review file and write them into `folder`.

    Args:
        review: The review CSV path, or its rows as a DataFrame.
        folder: The analyst's satellite folder (must hold its own `concept_keywords` and
            `concepts` files, e.g. from `quaestio satellites export`).
        added_by: Who admits the rows (written in `added_by`).
        added_at: When (default: today), a date or YYYY-MM-DD.
        label: How errors name the review file (default: its path).

    Returns:
        An `Admission` with the rows written and the files replaced.

    Raises:
        SatelliteError: every bad row at once (file, line, column, value, reason); nothing
            is written then.
    """
    folder = Path(folder)
    if isinstance(review, (str, Path)):
        label, frame = label or str(review), read_review(review)
    else:
        label, frame = label or "review DataFrame", as_polars(review)
    for table in ("concept_keywords", "concepts"):
        require_table_files(folder, table)
    when = str(added_at or dt.date.today())
    missing = [c for c in ("decision", "concept", "language", "keyword") if c not in frame.columns]
    if missing:
        raise SatelliteError(
            [
                _case(label, "concept_keywords", None, c, None, "required column is missing")
                for c in missing
            ]
        )
    frame = frame.with_columns(pl.col(c).cast(pl.String) for c in frame.columns)
    lines = list(range(2, frame.height + 2))  # as an editor numbers them; header is line 1
    current = load_satellites(folder)
    concepts = set(current.concepts["concept"].to_list())
    failures, kw_rows, kw_lines, phrases = [], [], [], []
    pending = 0
    for line, rec in zip(lines, frame.iter_rows(named=True)):
        decision = (rec.get("decision") or "").strip().lower()
        if not decision:
            pending += 1
            continue
        if decision not in ACCEPT | REJECT:
            failures.append(
                _case(
                    label,
                    "concept_keywords",
                    line,
                    "decision",
                    rec["decision"],
                    "must be accept or reject (or empty: pending)",
                )
            )
            continue
        concept = (rec.get("concept") or "").strip()
        if decision in REJECT and concept not in concepts:
            phrases.append(
                {
                    "language": rec.get("language"),
                    "keyword": rec.get("keyword"),
                    "proposed_concept": rec.get("proposed_concept"),
                    "cluster_id": rec.get("cluster_id"),
                    "added_by": added_by,
                    "added_at": when,
                }
            )
            continue
        if decision in ACCEPT and concept and concept not in concepts:
            failures.append(
                _case(
                    label,
                    "concept_keywords",
                    line,
                    "concept",
                    concept,
                    "unknown concept: not a row of concepts; add the concept "
                    "first (quaestio satellites load)",
                )
            )
            continue
        kw_rows.append(_keyword_row(rec, decision in ACCEPT, added_by, when))
        kw_lines.append(line)
    new = ordered(
        pl.DataFrame(kw_rows, schema={k: pl.String for k in _KW_COLUMNS}), "concept_keywords"
    )
    failures += _folded_duplicates(new, kw_lines, label, current)
    target = folder / DISCOVERY_FILE
    try:
        validate_with(
            folder, {"concept_keywords": new}, labels={"concept_keywords": (label, kw_lines)}
        )
    except SatelliteError as exc:
        failures += exc.failure_cases
    if failures:
        raise SatelliteError(_sorted(failures))
    existing = read_rows(target)
    merged = pl.concat([existing, new], how="diagonal") if not existing.is_empty() else new
    files = {target: ordered(merged, "concept_keywords")}
    if phrases:
        side = folder / REJECTED_FILE
        side.parent.mkdir(exist_ok=True)
        old = read_rows(side)
        add = pl.DataFrame(phrases, schema={k: pl.String for k in phrases[0]})
        files[side] = pl.concat([old, add], how="diagonal") if not old.is_empty() else add
    written = write_atomically(files) if (kw_rows or phrases) else []
    admitted = new.filter(pl.col("status") == "validated")
    rejected = pl.concat(
        [
            new.filter(pl.col("status") == "rejected").select("concept", "language", "keyword"),
            pl.DataFrame(phrases, schema={"language": pl.String, "keyword": pl.String})
            .with_columns(pl.lit(None, pl.String).alias("concept"))
            .select("concept", "language", "keyword"),
        ]
    )
    return Admission(admitted, rejected, pending, written)


_KW_COLUMNS = (
    "concept",
    "language",
    "keyword",
    "keyword_priority",
    "weight",
    "match",
    "status",
    "source",
    "added_by",
    "added_at",
)


def _keyword_row(rec: dict, accepted: bool, who: str, when: str) -> dict[str, Any]:
    def val(name: str, default: str | None = None) -> str | None:
        value = rec.get(name)
        value = value.strip() if isinstance(value, str) else value
        return value if value not in (None, "") else default

    weight = val("weight")
    if not accepted and weight is None:
        weight = "1.0"  # a rejection needs no weight, but the schema asks for one
    return {
        "concept": val("concept"),
        "language": val("language"),
        "keyword": val("keyword"),
        "keyword_priority": val("keyword_priority", "secondary"),
        "weight": weight,
        "match": val("match", "fuzzy"),
        "status": "validated" if accepted else "rejected",
        "source": "discovery",
        "added_by": who,
        "added_at": when,
    }


def _folded_duplicates(new: pl.DataFrame, lines: list[int], label: str, sats) -> list[dict]:
    """Keys differ only in case or accents: the parser would see the same keyword twice."""
    seen: dict[tuple, str] = {}
    for c, lang, kw, status in sats.concept_keywords.select(
        "concept", "language", "keyword", "status"
    ).iter_rows():
        seen[(c, lang, fold_phrase(kw))] = f"existing row ({status}) {kw!r}"
    failures = []
    for line, (c, lang, kw) in zip(
        lines, new.select("concept", "language", "keyword").iter_rows()
    ):
        if not kw or not c:
            continue
        key = (c, lang, fold_phrase(kw))
        if key in seen:
            failures.append(
                _case(
                    label,
                    "concept_keywords",
                    line,
                    "keyword",
                    kw,
                    f"duplicate of {seen[key]} of {c}/{lang}",
                )
            )
        else:
            seen[key] = f"line {line}"
    return failures


def _sorted(cases: list[dict]) -> list[dict]:
    # `_folded_duplicates` reports every exact duplicate too, on the review line itself; the
    # loader's message would also point at the existing row, which is not what to fix.
    kept = [c for c in cases if c["reason"] != "duplicate key"]
    return sorted(kept, key=lambda c: (str(c["source"]), c["row"] or 0, str(c["column"])))
