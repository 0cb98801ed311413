"""`parse_questions`: a batch in, `question_df` out, exactly one row per input, in order."""

from __future__ import annotations

import gc
import sys
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import islice
from typing import Any, Literal, overload

import pyarrow as pa

from ..errors import QuaestioError, QuestionError, ReasonCode
from ..refiners import as_refiner
from ..satellites import Satellites, bundled_satellites
from ..schema import COMPACT_SCHEMA, ENGINES, question_schema, table_to_frame, to_record
from ..types import ParsedQuestion, Provenance
from .columns import records_to_table
from .dictionary import expand_pieces
from .draft import Draft
from .pipeline import (
    DEFAULT_STEPS,
    Step,
    finish_pieces,
    new_draft,
    run_steps,
    run_steps_together,
)
from .text import without_surrogates

Errors = Literal["collect", "raise", "warn"]


def parse_questions(
    questions: Any,
    satellites: Satellites | None = None,
    *,
    question_column: str = "question",
    id_column: str | None = None,
    language: str | None = None,
    toc: Sequence[str] | None = None,
    scope: Mapping[str, Any] | None = None,
    parties: Sequence[str] | None = None,
    steps: Sequence[Step] = DEFAULT_STEPS,
    errors: Errors = "collect",
    progress: bool | None = None,
    as_: str | None = None,
    llm: Any = None,
):
    """Parse a batch of questions into `question_df`, one row per question, in input order.

    Args:
        questions: A list of strings, a pandas Series or DataFrame, or a polars DataFrame
            or Series.
        satellites: The tables to join against; the bundled defaults when None.
        question_column: The column that holds the questions, for DataFrames.
        id_column: A column whose values become `question_id`; else ids are `q0`, `q1`, ...
        language: Force one language for every question instead of detecting it.
        toc: As in `parse_question`, applied to every question.
        scope: As in `parse_question`, applied to every question.
        parties: As in `parse_question`, applied to every question.
        steps: The parse steps (see `parse_question`).
        errors: "collect" (default) turns a failing question into a row with `error_code`
            and `error_message`; "warn" does the same and also warns; "raise" raises.
        progress: Show a progress bar on stderr; by default only for long batches on a
            terminal.
        as_: "pandas", "polars" or "arrow"; by default the caller's engine (pandas for lists).
        llm: The LLM mode (see `parse_question`): the offline pass runs for every question,
            then one call per distinct question, `concurrency` at a time (an `LLMConfig`
            knob), rows kept in input order; a failed call keeps the offline row.

    Returns:
        `question_df` in the requested engine, with the columns of `quaestio.schema.COLUMNS`.

    Raises:
        QuestionError: with errors="raise", for the first bad question (row, column, value).
        ValueError: if `question_column` or `id_column` is not in the DataFrame.

    Examples:
        >>> qdf = parse_questions(["What is the annual premium?", None])
        >>> qdf.error_code.fillna("").tolist()
        ['', 'missing_question']
    """
    if errors not in ("collect", "raise", "warn"):
        raise ValueError(f"errors must be 'collect', 'raise' or 'warn', not {errors!r}")
    texts, ids, engine = _unpack(questions, question_column, id_column)
    engine = as_ or engine
    if engine not in ENGINES:
        from ..errors import UnknownNameError

        raise UnknownNameError("engine", engine, ENGINES)
    sats = satellites if satellites is not None else bundled_satellites()
    if llm is not None:
        table = _with_llm(
            llm,
            texts,
            ids,
            sats,
            question_column,
            errors,
            progress,
            {"language": language, "toc": toc, "scope": scope, "parties": parties, "steps": steps},
        )
        return table_to_frame(table, engine)
    batches = iter_parse(
        (texts, ids),
        sats,
        question_column=question_column,
        language=language,
        toc=toc,
        scope=scope,
        parties=parties,
        steps=steps,
        errors=errors,
        progress=progress,
    )
    # One chunk per batch, not combined: combining would copy the whole table at its peak.
    # pandas and polars get plain strings: each batch is decoded as it comes, so the whole
    # compact table never sits beside its decoded copy.
    schema = COMPACT_SCHEMA if engine == "arrow" else question_schema()
    kept = [_compacted(b if engine == "arrow" else b.cast(schema)) for b in batches]
    return table_to_frame(pa.Table.from_batches(kept, schema=schema), engine)


def iter_parse(
    questions: Any,
    satellites: Satellites | None = None,
    *,
    question_column: str = "question",
    id_column: str | None = None,
    language: str | None = None,
    toc: Sequence[str] | None = None,
    scope: Mapping[str, Any] | None = None,
    parties: Sequence[str] | None = None,
    steps: Sequence[Step] = DEFAULT_STEPS,
    errors: Errors = "collect",
    progress: bool | None = False,
    batch_size: int = 2048,
    llm: Any = None,
) -> Iterator[pa.RecordBatch]:
    """Parse questions as a stream: Arrow record batches of `question_df` rows in
    `COMPACT_SCHEMA`, `batch_size` rows each, in input order.

    Memory stays flat whatever the number of questions: a batch is built, yielded and can be
    written out before the next is parsed. `questions` may be anything `parse_questions`
    takes, or any iterable of strings (read lazily, ids q0, q1, ...); the other arguments
    are those of `parse_questions` (with `llm`, each batch is refined on its own).

    Examples:
        >>> batches = iter_parse(["What is the annual premium?"] * 3, batch_size=2)
        >>> [b.num_rows for b in batches]
        [2, 1]
    """
    if errors not in ("collect", "raise", "warn"):
        raise ValueError(f"errors must be 'collect', 'raise' or 'warn', not {errors!r}")
    sats = satellites if satellites is not None else bundled_satellites()
    options = {"language": language, "toc": toc, "scope": scope, "parties": parties}
    pairs, total = _pairs(questions, question_column, id_column)
    pairs = _progress(pairs, total, progress)
    numbered = enumerate(pairs)
    first = True
    while True:
        chunk = list(islice(numbered, batch_size))
        if not chunk and not first:
            return
        first = False
        if llm is None:
            with gc_paused():
                rows = _records(chunk, sats, question_column, errors, steps, options)
                table = _to_table(rows, sats)
        else:
            texts = [text for _, (_, text) in chunk]
            ids = [qid for _, (qid, _) in chunk]
            table = _with_llm(
                llm, texts, ids, sats, question_column, errors, False, {**options, "steps": steps}
            )
        batch = _one_batch(table)
        # mimalloc, Arrow's default pool, keeps what it freed for later: a caller's Parquet
        # read (~165 MB for a million questions) and each batch's scratch. Handing it back
        # keeps a long run's peak to what it holds.
        pa.default_memory_pool().release_unused()
        yield batch


def _pairs(questions: Any, column: str, id_column: str | None) -> tuple[Iterable, int | None]:
    """(id, text) pairs, and their number when known without reading them."""
    if isinstance(questions, tuple) and len(questions) == 2:  # parse_questions' own lists
        texts, ids = questions
        return zip(ids, texts), len(texts)
    frames = tuple(m.DataFrame for m in map(sys.modules.get, ("polars", "pandas")) if m)
    series = tuple(m.Series for m in map(sys.modules.get, ("polars", "pandas")) if m)
    if isinstance(questions, (*frames, *series, list)):
        texts, ids, _ = _unpack(questions, column, id_column)
        return zip(ids, texts), len(texts)
    if isinstance(questions, str) or not isinstance(questions, Iterable):
        _unpack(questions, column, id_column)  # raises the TypeError parse_questions raises
    return ((f"q{i}", text) for i, text in enumerate(questions)), None


def _records(
    chunk: list[tuple[int, tuple[str, Any]]],
    sats: Satellites,
    column: str,
    errors: Errors,
    steps: Sequence[Step],
    options: dict[str, Any],
) -> list[dict[str, Any]]:
    """The records of a chunk of (row number, (id, text)), in order, one per question: the
    steps run over the chunk together (`run_steps_together`); a question that fails its
    check, a step or its record becomes an error row (or raises / warns, by `errors`, in
    input order)."""
    drafts: list[Draft] = []
    at: list[int | None] = []  # chunk position -> its draft's position, None: not checked
    failed: dict[int, Exception] = {}  # chunk position -> why
    spent: list[float] = []
    for k, (n, (qid, text)) in enumerate(chunk):
        started = time.perf_counter()
        try:
            drafts.append(
                new_draft(_checked(text, n, column, sats), sats, question_id=qid, **options)
            )
        except Exception as exc:
            failed[k] = exc
            at.append(None)
            continue
        at.append(len(drafts) - 1)
        spent.append(time.perf_counter() - started)
    in_steps, stopped = run_steps_together(drafts, steps)
    rows = []
    for k, (_, (qid, text)) in enumerate(chunk):
        i = at[k]
        why = failed.get(k) if i is None else stopped.get(i)
        if why is None and i is not None:
            took = spent[i] + in_steps[i]
            try:  # `_to_table` reads the variant blocks `finish_pieces` leaves in place
                rows.append(finish_pieces(drafts[i], time.perf_counter() - took))
                continue
            except Exception as record_failure:
                why = record_failure
        assert why is not None
        if errors == "raise":
            raise why
        if errors == "warn":
            warnings.warn(f"question {qid!r}: {why}", stacklevel=3)
        rows.append(to_record(_error_row(qid, text, why, sats)))
    return rows


def _one_batch(table: pa.Table) -> pa.RecordBatch:
    batches = table.combine_chunks().to_batches()
    if len(batches) == 1:
        return batches[0]
    return pa.RecordBatch.from_pylist([], schema=table.schema)


def _compacted(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch copied into one buffer of its own (an Arrow IPC stream read in place).

    A batch's few hundred buffers are allocated among its scratch (the rows' conversion, the
    keyword `take`), so the pool's pages that hold them also held scratch: once the scratch
    is freed, those pages stay mapped, partly used, for as long as the batch is kept (~25%
    over the table's own size for a million questions held in one table). One allocation
    the batch's size sits in pages of its own; the scattered original is freed with its
    scratch, and `iter_parse` hands that memory back before the next batch. The copy comes
    from the system allocator (a block this large gets pages of its own there: 1,473 MB
    peak for a million questions against 1,554 from mimalloc), so Arrow's default pool
    (`pa.total_allocated_bytes()`) holds only the parse's scratch."""
    sink = pa.MockOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    buffer = pa.allocate_buffer(sink.size(), memory_pool=pa.system_memory_pool())
    with pa.ipc.new_stream(pa.FixedSizeBufferWriter(buffer), batch.schema) as writer:
        writer.write_batch(batch)
    return pa.ipc.open_stream(buffer).read_next_batch()


def _with_llm(
    llm: Any,
    texts: list[Any],
    ids: Sequence[str],
    sats: Satellites,
    column: str,
    errors: Errors,
    progress: bool | None,
    options: dict[str, Any],
) -> pa.Table:
    from .pipeline import finish_record

    mode = as_refiner(llm, sats)
    records: list[Any] = [None] * len(texts)
    drafts, where = [], []
    for n, (qid, text) in enumerate(zip(ids, texts)):
        try:
            drafts.append(
                run_steps(_checked(text, n, column, sats), sats, question_id=qid, **options)
            )
            where.append(n)
        except Exception as exc:
            if errors == "raise":
                raise
            records[n] = to_record(_error_row(qid, text, exc, sats))
            if errors == "warn":
                warnings.warn(f"question {qid!r}: {exc}", stacklevel=3)
    for n, record in zip(where, mode.parse_drafts(drafts, finish_record, progress=progress)):
        records[n] = record
    return _to_table(records, sats)


def _to_table(records: list[dict[str, Any]], sats: Satellites) -> pa.Table:
    """The records as one Arrow table (`COMPACT_SCHEMA`); should Arrow refuse a record (a
    value no step checked), that record alone becomes an error row, so the batch keeps
    every row."""
    try:
        return records_to_table(records, sats)
    except (pa.ArrowException, ValueError, TypeError, OverflowError):
        pass
    kept = []
    for record in records:
        if isinstance(record.get("keywords"), list):
            record = {**record, "keywords": expand_pieces(record["keywords"])}
        try:
            pa.Table.from_pylist([record], schema=COMPACT_SCHEMA)
            kept.append(record)
        except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
            kept.append(
                to_record(
                    _error_row(
                        record.get("question_id") or "", record.get("original_question"), exc, sats
                    )
                )
            )
    return records_to_table(kept, sats)


@contextmanager
def gc_paused():
    # Parsing allocates many short-lived objects and no reference cycles, so the cyclic
    # collector only burns time re-scanning the dictionary index (it halves throughput).
    # Reference counting still frees every row; the collector is restored afterwards.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _checked(text: Any, n: int, column: str, sats: Satellites) -> Any:
    from .pipeline import check_question

    return check_question(text, row=n, column=column, max_chars=sats.defaults.max_question_chars)


def _unpack(
    questions: Any, column: str, id_column: str | None
) -> tuple[list[Any], Sequence[str], str]:
    pl = sys.modules.get("polars")
    pd = sys.modules.get("pandas")
    if pl is not None and isinstance(questions, (pl.DataFrame, pl.Series)):
        frame = questions.to_frame(column) if isinstance(questions, pl.Series) else questions
        texts = _column(frame.columns, frame, column).to_list()
        ids = _ids(frame, frame.columns, id_column, len(texts), lambda c: c.to_list())
        return texts, ids, "polars"
    if pd is not None and isinstance(questions, (pd.DataFrame, pd.Series)):
        frame = questions.to_frame(column) if isinstance(questions, pd.Series) else questions
        texts = _column(list(frame.columns), frame, column).tolist()
        ids = _ids(frame, list(frame.columns), id_column, len(texts), lambda c: c.tolist())
        return texts, ids, "pandas"
    if isinstance(questions, str) or not isinstance(questions, Iterable):
        raise TypeError(
            "questions must be a list of strings or a DataFrame/Series; "
            "for one question use parse_question()"
        )
    texts = list(questions)
    return texts, NumberedIds(len(texts)), "pandas"


def _column(columns: list[str], frame: Any, name: str):
    if name not in columns:
        raise ValueError(
            f"column {name!r} not found; columns are {list(columns)}. Pass question_column=..."
        )
    return frame[name]


class NumberedIds(Sequence[str]):
    """The default ids `q0`, `q1`, ... made as they are read: a list of a million of them
    would cost ~65 MB for as long as the batch runs."""

    def __init__(self, n: int):
        self._n = n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [f"q{n}" for n in range(self._n)[i]]
        n = range(self._n)[i]  # raises IndexError as a list would
        return f"q{n}"


def _ids(frame, columns, id_column, n, to_list) -> Sequence[str]:
    if id_column is None:
        return NumberedIds(n)
    return [without_surrogates(str(v))[0] for v in to_list(_column(columns, frame, id_column))]


def _error_row(qid: str, text: Any, exc: Exception, sats: Satellites) -> ParsedQuestion:
    code = exc.code if isinstance(exc, QuestionError) else ReasonCode.INTERNAL_ERROR
    message = str(exc) if isinstance(exc, QuaestioError) else f"{type(exc).__name__}: {exc}"
    return ParsedQuestion(
        question_id=without_surrogates(str(qid))[0],
        original_question=without_surrogates(text)[0] if isinstance(text, str) else None,
        provenance=Provenance(
            satellites_version=sats.version,
            error_code=code,
            error_message=without_surrogates(message)[0],
        ),
    )


def _progress(items, total: int | None, progress: bool | None):
    if progress is None:  # an unknown total (a lazy iterable) is taken as long
        progress = (total is None or total >= 2000) and sys.stderr.isatty()
    if not progress:
        return items
    from tqdm import tqdm

    return tqdm(items, total=total, unit="q", file=sys.stderr)
