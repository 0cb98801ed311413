"""`quaestio report`, `discover`, `admit`, `satellites diff` and `satellites load`: the
analyst's curation loop, a thin layer over `quaestio.curation`."""

from __future__ import annotations

import getpass
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import cli, satellites_option
from . import load_satellites_or_bundled as _satellites
from .errors import check_columns, check_text_file, user_errors
from .satellites import satellites as satellites_group

_TABLE: dict[str, Any] = dict(
    tbl_rows=25, tbl_hide_dataframe_shape=True, fmt_str_lengths=60, tbl_width_chars=140
)


def _show(title: str, frame) -> None:
    import polars as pl

    click.echo(f"\n{title} ({frame.height})")
    if frame.height:
        with pl.Config(**_TABLE):
            click.echo(frame)


def _read_batch(path: str, sats, question_column: str, id_column: str | None):
    """A question_df file, or a file of questions parsed here."""
    import polars as pl

    from ..io import file_format

    fmt = file_format(path)
    check_text_file(path)
    readers: dict[str, Callable[[str], pl.DataFrame]] = {
        "parquet": pl.read_parquet,
        "jsonl": pl.read_ndjson,
        "csv": lambda p: pl.read_csv(p, infer_schema=False),
    }
    frame = readers[fmt](path)
    if "concepts" in frame.columns and frame.schema["concepts"] == pl.List(pl.String):
        return frame
    check_columns(path, frame.columns, question_column=question_column, id_column=id_column)
    from ..analysis import parse_questions

    return parse_questions(
        frame, sats, question_column=question_column, id_column=id_column, as_="polars"
    )


@cli.command()
@click.argument("questions", required=False, type=click.Path(exists=True, dir_okay=False))
@satellites_option
@click.option(
    "--corpus",
    type=click.Path(exists=True),
    help="Also check which dictionary variants occur in this corpus.",
)
@click.option("--question-column", default="question", show_default=True)
@click.option("--id-column", help="Column whose values become question_id.")
@click.option(
    "--text-column", default="text", show_default=True, help="Text column of a tabular corpus."
)
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Also write every table as CSV into this folder.",
)
def report(
    questions: str | None,
    satellites_dir: str | None,
    corpus: str | None,
    question_column: str,
    id_column: str | None,
    text_column: str,
    out_dir: str | None,
) -> None:
    """Coverage and health of the dictionary.

    QUESTIONS is a question_df file (from `quaestio batch`, Parquet or JSONL) or a file of
    questions, parsed here. Shows the questions that matched no concept, concepts never
    hit, ambiguous keywords and how they were resolved, and hit rates per concept,
    language and family. With --corpus: variants absent from the corpus and concepts
    found in one language only.
    """
    from ..curation import corpus_coverage, coverage_report

    if not questions and not corpus:
        raise click.UsageError("give a QUESTIONS file, a --corpus, or both")
    tables = {}
    with user_errors(source=questions):
        sats = _satellites(satellites_dir)
        if questions:
            rep = coverage_report(_read_batch(questions, sats, question_column, id_column), sats)
            tables.update({f"coverage_{k}": v for k, v in rep._asdict().items()})
        if corpus:
            cov = corpus_coverage(corpus, sats, text_column=text_column)
            tables.update({f"corpus_{k}": v for k, v in cov._asdict().items()})
    shown = (
        "coverage_summary",
        "coverage_unmatched",
        "coverage_never_hit",
        "coverage_ambiguous",
        "coverage_by_concept",
        "coverage_by_language",
        "coverage_by_family",
        "corpus_absent",
        "corpus_single_language",
    )
    for name in shown:
        if name in tables:
            frame = tables[name]
            if name == "corpus_absent":
                frame = frame.select("concept", "language", "keyword")
            _show(name.replace("_", " "), frame)
    if out_dir:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        for name, frame in tables.items():
            _flat(frame).write_csv(Path(out_dir) / f"{name}.csv")
        click.echo(f"\n{len(tables)} tables written to {out_dir}", err=True)


def _flat(frame):
    import polars as pl

    lists = [n for n, t in frame.schema.items() if isinstance(t, pl.List)]
    return frame.with_columns(pl.col(n).list.join("; ") for n in lists)


@cli.command()
@click.argument("corpus", type=click.Path(exists=True))
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False),
    help="The review file to write (CSV).",
)
@satellites_option
@click.option("--min-cluster-size", default=5, show_default=True)
@click.option("--min-samples", type=int, help="HDBSCAN min_samples (default: min size).")
@click.option("--dims", default=20, show_default=True, help="PCA dimensions (0: none).")
@click.option("--min-count", default=2, show_default=True, help="Ignore phrases seen fewer times.")
@click.option("--max-phrases", default=100_000, show_default=True)
@click.option(
    "--min-similarity",
    default=0.6,
    show_default=True,
    help="Least cosine similarity of a variant to its concept's keywords.",
)
@click.option(
    "--model", default="all-MiniLM-L6-v2", show_default=True, help="Packaged embedding model."
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    envvar="QUAESTIO_CACHE",
    help="Embedding cache (default ~/.cache/quaestio).",
)
@click.option(
    "--anchor-source",
    "anchor_sources",
    multiple=True,
    default=("expert", "discovery"),
    show_default=True,
    help="Keyword sources whose rows anchor clusters (repeat the option).",
)
@click.option("--text-column", default="text", show_default=True)
@click.option("--language", help="Force one language for every document.")
def discover(
    corpus: str,
    output: str,
    satellites_dir: str | None,
    min_cluster_size: int,
    min_samples: int | None,
    dims: int,
    min_count: int,
    max_phrases: int,
    min_similarity: float,
    model: str,
    cache_dir: str | None,
    anchor_sources: tuple[str, ...],
    text_column: str,
    language: str | None,
) -> None:
    """Propose candidate variants and concepts found in CORPUS, into a review file.

    Noun phrases of CORPUS (folder or .md/.txt/.jsonl/.csv/.parquet file) are embedded
    with the dictionary's keywords and clustered (PCA + HDBSCAN). Clusters that hold a
    concept's keywords propose their other phrases as variants; the others are possible
    new concepts. Mark each row accept or reject, then run `quaestio admit`.
    """
    from ..curation import rejected_phrases
    from ..curation.discover import discover_candidates, write_candidates
    from .progress import StageBar

    with user_errors():
        sats = _satellites(satellites_dir)
        rejected = rejected_phrases(satellites_dir) if satellites_dir else set()
        with StageBar() as bar:
            found = discover_candidates(
                corpus,
                sats,
                min_cluster_size=min_cluster_size,
                min_samples=min_samples,
                dims=dims,
                min_count=min_count,
                max_phrases=max_phrases,
                min_similarity=min_similarity,
                model=model,
                cache_dir=cache_dir,
                rejected=rejected,
                anchor_sources=anchor_sources,
                text_column=text_column,
                language=language,
                progress=bar,
            )
    with user_errors(note=" (-o/--output)"):
        write_candidates(found.candidates, output)
    t = found.timings
    click.echo(
        f"{found.message} -> {output} "
        f"({t.get('total', 0):.1f} s, {int(t.get('encoded', 0))} phrases embedded)",
        err=True,
    )


@cli.command()
@click.argument("review", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--satellites",
    "satellites_dir",
    required=True,
    type=click.Path(exists=True, file_okay=False),
    envvar="QUAESTIO_SATELLITES",
    help="The satellite folder to write into.",
)
@click.option(
    "--by",
    "added_by",
    default=lambda: getpass.getuser(),
    help="Who admits the rows (default: the current user).",
)
@click.option("--date", "added_at", help="When, YYYY-MM-DD (default: today).")
def admit(review: str, satellites_dir: str, added_by: str, added_at: str | None) -> None:
    """Admit the rows of REVIEW marked accept into concept_keywords; remember rejections.

    Accepted rows are appended to concept_keywords.discovery.csv with status validated,
    source discovery, who and when; rejected ones with status rejected (or, for a new
    concept, to curation/rejected_phrases.csv) so they are not proposed again. Every bad
    row is reported at once and nothing is written then.
    """
    from ..curation import admit_candidates

    with user_errors("\nNothing was written.", source=review):
        check_text_file(review)
        done = admit_candidates(review, satellites_dir, added_by=added_by, added_at=added_at)
    click.echo(
        f"{done.admitted.height} admitted, {done.rejected.height} rejected, "
        f"{done.pending} pending -> {', '.join(map(str, done.files)) or 'nothing'}"
    )


@satellites_group.command("diff")
@click.argument("old", type=click.Path(exists=True, file_okay=False))
@click.argument("new", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--questions",
    type=click.Path(exists=True, dir_okay=False),
    help="Re-parse these questions with both versions and show what changes.",
)
@click.option("--question-column", default="question", show_default=True)
@click.option("--id-column", help="Column whose values become question_id.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    help="Write the row differences of --questions to this CSV.",
)
def diff(
    old: str,
    new: str,
    questions: str | None,
    question_column: str,
    id_column: str | None,
    output: str | None,
) -> None:
    """Rows added, removed and changed from OLD to NEW, and the questions they change."""
    import polars as pl

    from ..curation import reparse_changes, satellite_diff
    from ..satellites import load_satellites

    with user_errors():
        a, b = load_satellites(old), load_satellites(new)
        _show("satellite rows", satellite_diff(a, b))
        if questions:
            frame = _read_batch(questions, a, question_column, id_column)
            qs = (
                frame.select(pl.col("original_question").alias("question"), "question_id")
                if "original_question" in frame.columns
                else frame
            )
            changes = reparse_changes(
                qs, a, b, question_column="question", id_column="question_id"
            )
            _show("question_df cells that change", changes)
            _show(
                "changes per column",
                changes.group_by("column").len("questions").sort("questions", descending=True),
            )
            if output:
                changes.write_csv(output)


@satellites_group.command("load")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--name", help="The closed set's name: files become TABLE.NAME.csv.")
@click.option(
    "--keywords",
    type=click.Path(exists=True, dir_okay=False),
    help="CSV of concept_keywords rows (concept, language, keyword[, ...]).",
)
@click.option(
    "--concepts",
    type=click.Path(exists=True, dir_okay=False),
    help="CSV of concepts rows (concept, definition[, ...]).",
)
@click.option("--bundled", help="A closed set shipped with quaestio (countries, currencies).")
@click.option("--by", "added_by", default=lambda: getpass.getuser(), help="added_by value.")
def load(
    folder: str,
    name: str | None,
    keywords: str | None,
    concepts: str | None,
    bundled: str | None,
    added_by: str,
) -> None:
    """Bulk-load a closed set into FOLDER, validated, replacing the set's files atomically."""
    from ..curation import bundled_closed_set, load_closed_set

    with user_errors("\nNothing was written."):
        if bundled:
            concepts_rows, keyword_rows = bundled_closed_set(bundled)
            done = load_closed_set(
                folder, name=name or bundled, keywords=keyword_rows, concepts=concepts_rows
            )
        else:
            if not name:
                raise click.UsageError("give --name (or --bundled SET)")
            done = load_closed_set(
                folder, name=name, keywords=keywords, concepts=concepts, added_by=added_by
            )
    click.echo(
        f"{done.concepts} concepts, {done.keywords} keywords -> {', '.join(map(str, done.files))}"
    )
