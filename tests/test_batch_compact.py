"""The compact batch path: shared variant blocks, the dictionary-encoded table, iter_parse."""

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from quaestio import COMPACT_SCHEMA, QUESTION_SCHEMA, iter_parse, parse_question, parse_questions
from quaestio.analysis.dictionary import dictionary_index, dictionary_keywords, variant_blocks
from quaestio.analysis.pipeline import _PRECEDENCE, _deduplicate
from quaestio.analysis.text import fold
from quaestio.types import KeywordSource

QUESTIONS = [
    "What is the annual premium in Germany?",
    'Search for "force majeure", "premium"',
    None,
    "Whats the anual premuim?",
    "Is the limit per claim or per year?",
    "What is the premium and the limit?",
] * 3


def _plain(table: pa.Table) -> list[dict]:
    return table.cast(QUESTION_SCHEMA).drop_columns(["latency_ms"]).to_pylist()


def test_arrow_table_is_compact_and_decodes_to_the_same_values(tiny_sats):
    table = parse_questions(QUESTIONS, tiny_sats, as_="arrow")
    assert table.schema == COMPACT_SCHEMA
    assert pa.types.is_dictionary(table.schema.field("rules_fired").type.value_type)
    rows = [
        r.model_dump(mode="json") for r in (parse_question(q, tiny_sats) for q in QUESTIONS[:2])
    ]
    decoded = _plain(table)
    for row, got in zip(rows, decoded):
        assert [k["text"] for k in row["keywords"]] == [k["text"] for k in got["keywords"]]
        assert row["concepts"] == got["concepts"]


def test_iter_parse_streams_the_rows_of_parse_questions(tiny_sats):
    batches = list(iter_parse(QUESTIONS, tiny_sats, batch_size=4))
    assert [b.num_rows for b in batches] == [4, 4, 4, 4, 2]
    assert all(b.schema == COMPACT_SCHEMA for b in batches)
    streamed = pa.Table.from_batches(batches)
    assert _plain(streamed) == _plain(parse_questions(QUESTIONS, tiny_sats, as_="arrow"))
    lazy = (q for q in QUESTIONS)  # any iterable, read as it goes
    assert _plain(pa.Table.from_batches(list(iter_parse(lazy, tiny_sats)))) == _plain(streamed)
    empty = list(iter_parse([], tiny_sats))
    assert len(empty) == 1 and empty[0].num_rows == 0


def test_pandas_and_polars_get_plain_strings(tiny_sats):
    pdf = parse_questions(QUESTIONS, tiny_sats, as_="pandas")
    assert pa.Table.from_pandas(pdf, preserve_index=False).schema.field("keywords").type == (
        QUESTION_SCHEMA.field("keywords").type
    )
    pldf = parse_questions(QUESTIONS, tiny_sats, as_="polars")
    texts = pldf.select("keywords").explode("keywords").unnest("keywords")
    # Plain strings, so that a join on a user's String column works.
    assert texts.schema["source"] == pl.String and pldf.schema["concepts"] == pl.List(pl.String)
    mine = pl.DataFrame({"concept": ["premium"], "owner": ["analyst"]})
    assert texts.join(mine, on="concept").height > 0
    assert texts.filter(pl.col("source") == "explicit")["text"].to_list()[:2] == [
        "force majeure",
        "premium",
    ]


def test_every_variant_of_a_matched_concept_in_every_row(tiny_sats):
    index = dictionary_index(tiny_sats)
    table = parse_questions(["What is the annual premium?"] * 3000, tiny_sats, as_="arrow")
    rows = _plain(table)
    concept = rows[0]["concepts"][0]
    variants = {index.entries[i].keyword for i in index.by_concept[concept]}
    for row in (rows[0], rows[2047], rows[2048], rows[-1]):  # across batches
        got = {k["text"] for k in row["keywords"] if k["concept"] == concept}
        assert got == variants
        assert row["keywords"] == rows[0]["keywords"]


def _reference(keywords: list[dict]) -> list[dict]:
    """Deduplication as written before blocks: keyword by keyword."""
    best: dict[str, dict] = {}
    for k in keywords:
        key, held = fold(k["text"]), best.get(fold(k["text"]))
        if held is None or (
            (_PRECEDENCE[k["source"]], -k["weight"])
            < (_PRECEDENCE[held["source"]], -held["weight"])
        ):
            best[key] = k
    return [k for k in keywords if any(k is v for v in best.values())]


def test_deduplication_across_blocks_and_own_keywords_matches_the_reference(tiny_sats):
    parse_questions(["What is the premium and the limit?"], tiny_sats)  # builds the blocks
    blocks = list(variant_blocks(tiny_sats).by_first.values())
    assert blocks
    block = blocks[0]
    twin = block.keywords[-1]
    explicit = {**twin, "source": KeywordSource.EXPLICIT, "text": twin["text"].upper()}
    heavier = {**twin, "weight": twin["weight"] + 1, "concept": "other"}
    lighter = {**block.keywords[0], "weight": -1.0}
    for keywords in (
        [*block.keywords],
        [explicit, *block.keywords],
        [*block.keywords, heavier],
        [lighter, *block.keywords, explicit],
        [*block.keywords[:-1]],  # not the whole block: read keyword by keyword
        [*(b for blk in blocks for b in blk.keywords), explicit],
    ):
        assert _deduplicate(list(keywords), tiny_sats) == _reference(keywords)


def test_frame_round_trip_compares_by_value(tiny_sats):
    from quaestio.schema import frame_to_table

    a = frame_to_table(parse_questions(QUESTIONS, tiny_sats, as_="polars"))
    b = frame_to_table(parse_questions(QUESTIONS[::-1], tiny_sats, as_="arrow"))
    assert a.schema == QUESTION_SCHEMA == b.schema
    drop = ["latency_ms", "question_id", "error_message"]
    assert a.drop_columns(drop).to_pylist() == b.drop_columns(drop).to_pylist()[::-1]
    assert isinstance(parse_questions(QUESTIONS, tiny_sats), pd.DataFrame)


def test_a_batch_row_carries_its_concepts_variants_as_one_shared_block(tiny_sats):
    # The batch path's records hold each concept's expansion as the block built once per
    # satellites, not as copies of its dicts: the row's cost follows the matched concepts.
    from quaestio.analysis.dictionary import VariantBlock, expand_pieces
    from quaestio.analysis.pipeline import finish_pieces, finish_record, run_steps

    question = "What is the premium and the limit?"
    rows = [finish_pieces(*run_steps(question, tiny_sats)) for _ in range(2)]
    blocks = [[k for k in row["keywords"] if type(k) is VariantBlock] for row in rows]
    assert blocks[0] and all(a is b for a, b in zip(*blocks, strict=True))
    plain = finish_record(*run_steps(question, tiny_sats))["keywords"]
    assert expand_pieces(rows[0]["keywords"]) == plain
    assert not any(type(k) is VariantBlock for k in plain)  # the public record stays plain
    column = parse_questions([question] * 2, tiny_sats, as_="arrow").column("keywords")
    fields = ("text", "weight", "source", "span_start", "rule_id", "concept")
    assert [[tuple(k.get(f) for f in fields) for k in row] for row in column.to_pylist()] == [
        [tuple(k.get(f) for f in fields) for k in plain]
    ] * 2


def test_a_row_arrow_refuses_keeps_the_others_with_their_variants(tiny_sats):
    # The fallback (one record at a time) reads rows whose keywords hold blocks.
    from quaestio.analysis.batch import _to_table
    from quaestio.analysis.pipeline import finish_pieces, finish_record, run_steps

    good = finish_pieces(*run_steps("What is the annual premium?", tiny_sats))
    bad = {**finish_pieces(*run_steps("What is the limit?", tiny_sats)), "language": 7}
    rows = _to_table([good, bad], tiny_sats).to_pylist()
    plain = finish_record(*run_steps("What is the annual premium?", tiny_sats))["keywords"]
    assert [k["text"] for k in rows[0]["keywords"]] == [k["text"] for k in plain]
    assert rows[1]["error_code"] and not rows[0]["error_code"]


def test_a_drafts_variants_wait_as_the_shared_block_until_a_step_asks(tiny_sats):
    # The steps after the dictionary see the keywords that matched, not one dict per
    # variant; `expand_variants` gives the list as it was, each block after its keyword.
    from quaestio.analysis.dictionary import variant_blocks
    from quaestio.analysis.pipeline import DEFAULT_STEPS, run_steps

    upto = DEFAULT_STEPS[: DEFAULT_STEPS.index(dictionary_keywords) + 1]
    draft, _ = run_steps("What is the premium and the limit?", tiny_sats, steps=upto)
    assert [k["span_start"] is not None for k in draft.keywords] == [True, True]
    blocks = list(variant_blocks(tiny_sats).by_key.values())
    waiting = [block for _, block in draft.expansions.values()]
    assert waiting and all(any(b is w for b in blocks) for w in waiting)
    draft.expand_variants()
    assert not draft.expansions
    first, second = draft.keywords[0], waiting[0].keywords
    assert draft.keywords[1 : 1 + len(second)] == second and first["span_start"] is not None
    assert len(draft.keywords) == 2 + sum(len(b.keywords) for b in waiting)


def test_a_callers_own_step_sees_every_variant_in_draft_keywords(tiny_sats):
    # `steps=` takes the caller's functions too: those read `draft.keywords` whole, so the
    # waiting variants are put in before such a step runs (and the row is the same).
    import functools

    from quaestio.analysis.pipeline import DEFAULT_STEPS, finish_record, run_steps

    question = "What is the premium and the limit?"
    seen: list[int] = []

    def count_keywords(draft):
        seen.append(len(draft.keywords))

    @functools.wraps(DEFAULT_STEPS[-1])
    def timed_last(draft):  # a wrapped built-in step is still a built-in step
        DEFAULT_STEPS[-1](draft)

    plain, started = run_steps(question, tiny_sats)
    assert plain.expansions  # the built-in steps leave the variants waiting
    expected = finish_record(plain, started)["keywords"]
    plain.expand_variants()
    draft, started = run_steps(question, tiny_sats, steps=(*DEFAULT_STEPS, count_keywords))
    assert seen == [len(plain.keywords)] and not draft.expansions
    assert finish_record(draft, started)["keywords"] == expected
    wrapped, _ = run_steps(question, tiny_sats, steps=(*DEFAULT_STEPS[:-1], timed_last))
    assert wrapped.expansions


def test_the_compact_table_holds_the_very_values_of_the_plain_rows(tiny_sats):
    # Narrowed offsets, weights and enum columns as dictionaries: every value decodes back
    # to what the row model holds, column by column.
    from quaestio.schema import rows_to_table

    questions = [q for q in QUESTIONS if q is not None] + [
        "List the exclusions on pages 3-5 of the 2024 policy",
        "¿Cuál es la prima anual?",
        "What is the premium and, if so, the limit?",
    ]
    compact = parse_questions(questions, tiny_sats, as_="arrow").cast(QUESTION_SCHEMA)
    plain = rows_to_table(
        [parse_question(q, tiny_sats, question_id=f"q{i}") for i, q in enumerate(questions)]
    )
    drop = ["latency_ms"]
    assert compact.drop_columns(drop).to_pylist() == plain.drop_columns(drop).to_pylist()


def test_a_keyword_takes_a_few_bytes_in_the_compact_table(tiny_sats):
    questions = [f"{q} (case {i})" for i, q in enumerate(QUESTIONS * 50) if q is not None]
    keywords = parse_questions(questions, tiny_sats, as_="arrow").column("keywords")
    items = pa.concat_arrays([chunk.values for chunk in keywords.chunks])
    # Eight strings as 32-bit (or, for the source, 8-bit) indices, the weight as an index
    # too, two 32-bit offsets: 41 bytes and the null bitmaps. Plain int64 offsets and
    # doubles would take 57.
    assert items.nbytes / len(items) < 45
    assert keywords.type.value_type.field("weight").type.index_type == pa.int32()


def test_default_ids_are_made_as_they_are_read():
    from quaestio.analysis.batch import NumberedIds

    ids = NumberedIds(3)
    assert list(ids) == ["q0", "q1", "q2"] and len(ids) == 3
    assert ids[-1] == "q2" and ids[1:] == ["q1", "q2"]
    with pytest.raises(IndexError):
        ids[3]


def _buffers(array: pa.Array) -> list[pa.Buffer]:
    found = [b for b in array.buffers() if b is not None and b.size]
    if pa.types.is_dictionary(array.type):
        found += _buffers(array.dictionary)
    return found


@pytest.mark.parametrize("engine", ["arrow", "pandas"])
def test_each_kept_batch_sits_in_one_allocation(tiny_sats, engine):
    # A batch built among its scratch keeps the pool's pages it shares with that scratch
    # mapped; parse_questions keeps each batch as one block of its own instead.
    frame = parse_questions(QUESTIONS * 300, tiny_sats, as_=engine)
    if engine == "arrow":
        table = frame
    else:  # pandas' ArrowDtype columns hold the Arrow chunks as they are
        table = pa.table({c: frame[c].array.__arrow_array__() for c in frame.columns})
    assert table.column(0).num_chunks == 3  # the streamed batches, not combined
    for i in range(3):
        buffers = [b for column in table.columns for b in _buffers(column.chunk(i))]
        start = min(b.address for b in buffers)
        end = max(b.address + b.size for b in buffers)
        assert end - start < 2 * sum(b.size for b in buffers) + 2**16, (i, end - start)
    assert _plain(table) == _plain(parse_questions(QUESTIONS * 300, tiny_sats, as_="arrow"))
