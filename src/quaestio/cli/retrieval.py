"""`quaestio index` and `quaestio search`: build an index from a folder, query it."""

from __future__ import annotations

import json
import warnings
from typing import Any

import click

from . import cli, satellites_option
from . import load_satellites_or_bundled as _satellites
from .errors import UserError, echo_warnings, user_errors

BACKENDS = ("hybrid", "bm25", "dense", "parent", "sentence")


@cli.command("index")
@click.argument("docs", type=click.Path(exists=True))
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False),
    help="Index folder, written atomically. An existing folder is replaced only "
    "if it is a quaestio index holding nothing else.",
)
@click.option(
    "--postgres",
    "dsn",
    metavar="DSN",
    envvar="QUAESTIO_POSTGRES",
    help="Write the index to this PostgreSQL database instead (one transaction).",
)
@click.option(
    "--model", default="all-MiniLM-L6-v2", show_default=True, help="Packaged embedding model."
)
@click.option("--no-embeddings", is_flag=True, help="bm25 only: no vectors, no torch.")
@click.option("--no-parent-child", is_flag=True, help="Do not store parents and children.")
@click.option(
    "--sentence-window",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="Also index sentences, delivered with N neighbours each side.",
)
@click.option("--encoding", help="Force one encoding for every file.")
@click.option(
    "--update",
    is_flag=True,
    help="Bring the index in OUTPUT up to date with DOCS: new files added, changed "
    "ones re-chunked, missing ones removed; unchanged chunks keep their "
    "vectors. The index keeps its own model and chunking options.",
)
def index_command(
    docs: str,
    output: str | None,
    dsn: str | None,
    model: str,
    no_embeddings: bool,
    no_parent_child: bool,
    sentence_window: int,
    encoding: str | None,
    update: bool,
) -> None:
    """Chunk and index the Markdown/text files of DOCS (a folder or one file)."""
    if (output is None) == (dsn is None):
        raise click.UsageError("give one of -o/--output (a folder) or --postgres DSN")
    if update and dsn is not None:
        raise click.UsageError(
            "--update is for folder indexes; a PostgreSQL index is updated "
            "with PostgresIndex.add_documents / update_documents / "
            "remove_documents"
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        options: dict[str, Any] = {
            "embedding_model": None if no_embeddings else model,
            "parent_child": not no_parent_child,
            "sentence_window": sentence_window,
            "encoding": encoding,
            "progress": True,
        }
        with user_errors():
            if dsn is not None:
                m = _to_postgres(docs, dsn, options)
            else:
                assert output is not None, "checked above: exactly one of output and dsn"
                if update and _has_manifest(output):
                    index = _update(
                        docs,
                        output,
                        model,
                        no_embeddings,
                        no_parent_child,
                        sentence_window,
                        encoding,
                    )
                else:
                    index = _build(docs, output, options)
                m = {
                    **index.manifest,
                    "sections": sum(
                        g == "section" for g in index.chunks.column("granularity").to_pylist()
                    ),
                }
    echo_warnings(caught)
    if update and m.get("updates"):
        u = m["updates"][-1]
        click.echo(
            f"update: {u['n_added']} added, {u['n_updated']} updated, "
            f"{u['n_removed']} removed, {u['n_unchanged']} unchanged; "
            f"{u['chunks_embedded']} chunks embedded, {u['chunks_reused']} reused",
            err=True,
        )
    sections = m["sections"]
    click.echo(
        f"{m['documents']} documents -> {sections} chunks ({m['chunks']} rows with "
        f"parents/children) -> {output or 'PostgreSQL'} "
        f"[{m['embedding_model']['name'] if m['embedding_model'] else 'bm25 only'}]",
        err=True,
    )


def _build(docs: str, output: str, options: dict[str, Any]):
    """`build_index` with one bar through its stages (chunking, embedding) on a terminal;
    redirected output gets only the summary line."""
    from ..retrieval import build_index
    from .progress import StageBar

    with StageBar() as bar:
        return build_index(docs, output, **{**options, "progress": bar})


def _has_manifest(output: str) -> bool:
    from pathlib import Path

    return (Path(output) / "manifest.json").exists()


def _update(docs, output, model, no_embeddings, no_parent_child, sentence_window, encoding):
    from ..retrieval import open_index, sync_documents
    from ..retrieval.embeddings import resolve

    index = open_index(output)
    ctx = click.get_current_context()

    def explicit(name: str) -> bool:
        source = ctx.get_parameter_source(name)
        return source not in (click.core.ParameterSource.DEFAULT, None)

    options = index.manifest["chunk_options"]
    differs = []
    if explicit("model") and resolve(model).name != index.embedding_model:
        differs.append(f"--model {model} (the index: {index.embedding_model or 'none'})")
    if explicit("no_embeddings") and index.embedding_model:
        differs.append(f"--no-embeddings (the index: {index.embedding_model})")
    if explicit("no_parent_child") and options.get("parent_child"):
        differs.append("--no-parent-child (the index stores parents)")
    if explicit("sentence_window") and sentence_window != options.get("sentence_window"):
        differs.append(
            f"--sentence-window {sentence_window} (the index: {options.get('sentence_window')})"
        )
    if differs:
        raise UserError(
            f"{output}: --update keeps the index's options, and "
            f"{'; '.join(differs)} differ; rebuild without --update to change them"
        )
    from .progress import StageBar

    with StageBar() as bar:  # one bar: the changed documents read, then their chunks embedded
        return sync_documents(index, docs, encoding=encoding, progress=bar)


def _to_postgres(docs: str, dsn: str, options: dict):
    """The documents chunked and written to PostgreSQL (vectors only where pgvector is)."""
    from ..retrieval.postgres import build_postgres

    with build_postgres(docs, dsn, **options) as store:
        return store.manifest


@cli.command("search")
@click.argument("index_dir", type=click.Path(exists=True, file_okay=False))
@click.argument("question")
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default=None,
    help="Default: hybrid, or bm25 for an index without embeddings.",
)
@click.option(
    "-k",
    "--k",
    "k",
    default=5,
    show_default=True,
    type=click.IntRange(min=1),
    help="Hits to return.",
)
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON lines.")
@click.option(
    "--first-pass",
    default=12,
    show_default=True,
    help="Candidates the backend returns before the funnel (at least k).",
)
@click.option(
    "--threshold",
    default="auto",
    show_default=True,
    help="Minimum question-passage similarity: a number, 'auto' (calibrated on the "
    "index: the 10th percentile of unrelated passage pairs) or 'off'.",
)
@click.option(
    "--reranker",
    default="off",
    show_default=True,
    help="'off', 'bi-encoder', 'windows' (packaged model over sentence windows) "
    "or the folder of a sentence-transformers cross-encoder.",
)
@click.option(
    "--floor",
    default="auto",
    show_default=True,
    help="Minimum final score: a number, 'auto' (the calibrated similarity, with a "
    "similarity reranker only) or 'off'.",
)
@click.option("--cap", type=int, default=None, help="At most this many hits (default: k).")
@click.option(
    "--siblings",
    default=2,
    show_default=True,
    help="Neighbouring parts restored as context per hit (0: none).",
)
@click.option(
    "--sibling-tokens",
    default=512,
    show_default=True,
    help="Token budget of the restored parts per hit.",
)
@satellites_option
def search_command(
    index_dir: str,
    question: str,
    backend: str | None,
    k: int,
    as_json: bool,
    first_pass: int,
    threshold: str,
    reranker: str,
    floor: str,
    cap: int | None,
    siblings: int,
    sibling_tokens: int,
    satellites_dir: str | None,
) -> None:
    """Search INDEX_DIR for QUESTION, print the hits, the typed values confirmed in them
    and the verdict (found / not_found / no_evidence / skipped)."""
    from ..analysis import parse_questions
    from ..confirm import confirm
    from ..retrieval import Funnel, open_index, search

    if not question.strip():
        raise UserError("QUESTION is empty: give the question to search for")
    with user_errors():
        index = open_index(index_dir)
        backend = backend or ("hybrid" if index.embedding_model else "bm25")
        sats = _satellites(satellites_dir)
        qdf = parse_questions([question], sats, as_="polars")
        funnel = Funnel(
            first_pass=first_pass,
            threshold=_setting("--threshold", threshold),
            reranker=None if reranker == "off" else reranker,
            floor=_setting("--floor", floor),
            cap=cap,
            siblings=siblings,
            sibling_tokens=sibling_tokens,
        )
        hits = search(
            index, qdf, backend=backend, k=k, as_="arrow", satellites=sats, funnel=funnel
        )
        answers, verdicts = confirm(qdf, hits, satellites=sats, as_="polars")
    if as_json:
        for row in hits.to_pylist():
            click.echo(json.dumps(row, ensure_ascii=False, default=str))
        click.echo(
            json.dumps(
                {"verdict": verdicts.to_dicts()[0], "answers": answers.head(k).to_dicts()},
                ensure_ascii=False,
                default=str,
            )
        )
        return
    for row in hits.to_pylist():
        pages = f" p.{row['page_start']}" if row["page_start"] is not None else ""
        if row["page_end"] not in (None, row["page_start"]):
            pages += f"-{row['page_end']}"
        part = (
            f" (part {row['part_index']} of {row['part_count']})"
            if (row["part_count"] or 1) > 1
            else ""
        )
        if row["route"] == "sibling":
            click.echo(f"    + context{part}: {row['breadcrumb']}")
            continue
        click.echo(
            f"{row['rank']:>2}. {row['score']:.4f}  {row['doc_id']}{pages}  "
            f"{row['breadcrumb']}{part}"
        )
        if row["matched_keywords"]:
            click.echo(f"    matched: {', '.join(row['matched_keywords'][:8])}")
    verdict = verdicts.row(0, named=True)
    click.echo(
        f"answer type: {qdf['answer_type'][0]}  verdict: {verdict['verdict']} "
        f"(confidence {verdict['confidence'] or 0:.2f})"
        + (f"  value: {verdict['value']}" if verdict.get("value") else "")
        + (f"  - {verdict['reason']}" if verdict.get("reason") else "")
    )
    for answer in answers.sort("confidence", descending=True).head(3).iter_rows(named=True):
        click.echo(
            f"    {answer['confidence']:.2f}  {answer['value_text']!r} in {answer['chunk_id']}"
        )


def _setting(flag: str, value: str):
    """A funnel setting from the command line: a number, "auto" or "off"."""
    if value == "auto":
        return "auto"
    if value in ("off", "none"):
        return None
    try:
        return float(value)
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not a number, 'auto' or 'off'", param_hint=flag
        ) from None
