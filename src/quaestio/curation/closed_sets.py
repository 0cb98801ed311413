"""Bulk-load a closed set (countries, currencies, product codes, ...) into a satellite folder.

A closed set is a named pair of files, `concept_keywords.NAME.csv` and `concepts.NAME.csv`,
that is regenerated as a whole rather than edited row by row: loading NAME again replaces
both files. The rows are validated with everything else in the folder first, and written
atomically.
"""

from __future__ import annotations

import datetime as dt
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from ..errors import SatelliteError
from ..satellites.schemas import ID_PATTERN
from .folder import _case, ordered, require_table_files, validate_with, write_atomically
from .reports import as_polars


class Loaded(NamedTuple):
    """What `load_closed_set` wrote."""

    concepts: int
    keywords: int
    files: list[Path]


def bundled_closed_set(name: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The (concepts, concept_keywords) rows of a closed set shipped in the wheel.

    The bundled sets are generated from data packages (pycountry, babel) by
    `scripts/generate_closed_sets.py`.
    """
    data = resources.files("quaestio.satellites") / "data"
    files = {e.name for e in data.iterdir()}
    available = sorted(
        n.split(".")[1] for n in files if n.startswith("concepts.") and n.count(".") == 2
    )
    if f"concepts.{name}.csv" not in files:
        from ..errors import UnknownNameError

        raise UnknownNameError("bundled closed set", name, available)
    read = [
        pl.read_csv((data / f"{t}.{name}.csv").open("rb"), infer_schema=False)
        for t in ("concepts", "concept_keywords")
    ]
    return read[0], read[1]


def load_closed_set(
    folder: str | Path,
    *,
    name: str,
    keywords: Any = None,
    concepts: Any = None,
    added_by: str | None = None,
    added_at: dt.date | str | None = None,
    source: str = "closed_set",
) -> Loaded:
    """Validate a closed set's rows and write them as `*.NAME.csv` files into `folder`.

    Args:
        folder: The analyst's satellite folder (must hold its own `concepts` and
            `concept_keywords` files).
        name: The set's name, used in the file names (snake_case).
        keywords: A CSV path or DataFrame of concept_keywords rows: concept, language,
            keyword, and optionally keyword_priority, weight (default 1.0), match, status,
            source (default `closed_set`), added_by, added_at (default: today).
        concepts: A CSV path or DataFrame of concepts rows for concepts the folder does not
            have yet (concept, definition, ...).

    Returns:
        A `Loaded` with row counts and the files written.

    Raises:
        SatelliteError: every bad row at once, named by the input file and line; nothing is
            written then.
    """
    folder = Path(folder)
    import regex

    if not regex.match(ID_PATTERN, name or ""):
        raise SatelliteError(
            [
                _case(
                    "closed set",
                    None,
                    None,
                    "name",
                    name,
                    "must be snake_case ASCII (a-z, 0-9, _)",
                )
            ]
        )
    for table in ("concept_keywords", "concepts"):
        require_table_files(folder, table)
    when, extra, labels, files = str(added_at or dt.date.today()), {}, {}, {}
    for table, given in (("concepts", concepts), ("concept_keywords", keywords)):
        if given is None:
            continue
        label, frame = _read(given, f"{table} rows")
        if table == "concept_keywords":
            frame = _fill(
                frame,
                {
                    "weight": "1.0",
                    "status": "validated",
                    "source": source,
                    "added_by": added_by,
                    "added_at": when,
                },
            )
        frame = frame.with_columns(pl.all().cast(pl.String))
        extra[table] = frame
        first = 2 if label.endswith(".csv") else 0
        labels[table] = (label, list(range(first, first + frame.height)))
        files[folder / f"{table}.{name}.csv"] = frame
    if not extra:
        raise SatelliteError(
            [
                _case(
                    "closed set",
                    None,
                    None,
                    None,
                    None,
                    "give keywords rows, concepts rows, or both",
                )
            ]
        )
    skip = {p.name for p in files}
    try:
        validate_with(folder, extra, skip=skip, labels=labels)
    except SatelliteError as exc:
        # The loader checks foreign keys only once every row is valid; name unknown concepts
        # in the same pass, so the analyst fixes the file once.
        raise SatelliteError(
            exc.failure_cases + _unknown_concepts(folder, skip, extra, labels)
        ) from None
    written = write_atomically({p: ordered(f, p.name.split(".")[0]) for p, f in files.items()})
    return Loaded(
        extra["concepts"].height if "concepts" in extra else 0,
        extra["concept_keywords"].height if "concept_keywords" in extra else 0,
        written,
    )


def _unknown_concepts(folder: Path, skip: set[str], extra: dict, labels: dict) -> list[dict]:
    if "concept_keywords" not in extra:
        return []
    from ..satellites import load_satellites
    from .folder import staged

    try:
        with staged(folder, skip) as view:
            known = set(load_satellites(view).concepts["concept"].to_list())
    except SatelliteError:
        return []
    if "concepts" in extra:
        known |= set(extra["concepts"]["concept"].drop_nulls().to_list())
    label, rows = labels["concept_keywords"]
    return [
        _case(
            label,
            "concept_keywords",
            rows[i],
            "concept",
            c,
            "unknown concept: not a row of concepts",
        )
        for i, c in enumerate(extra["concept_keywords"]["concept"].to_list())
        if c and c not in known
    ]


def _read(given: Any, what: str) -> tuple[str, pl.DataFrame]:
    if isinstance(given, (str, Path)):
        path = Path(given)
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
        return str(path), pl.read_csv(path, infer_schema=False)
    return what, as_polars(given)


def _fill(frame: pl.DataFrame, defaults: dict[str, str | None]) -> pl.DataFrame:
    for column, value in defaults.items():
        if value is None:
            continue
        if column not in frame.columns:
            frame = frame.with_columns(pl.lit(value, pl.String).alias(column))
        else:
            frame = frame.with_columns(
                pl.col(column).cast(pl.String).replace("", None).fill_null(value)
            )
    return frame
