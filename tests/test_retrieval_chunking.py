"""Chunking: heading structure, ids, part labels, and proof that no text is lost."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from quaestio.retrieval.chunking import ChunkOptions, chunk_document, render
from quaestio.retrieval.embeddings import approximate_tokens
from quaestio.retrieval.markdown import parse_markdown
from quaestio.retrieval.sources import RawDoc

DOC = """---
title: Policy
date: 2024-01-31
parties: Acme; Jane Doe
---
Preamble text under no heading, long enough to stand on its own as an orphan chunk here.

# Policy

Intro of the policy.

## Cover

The cover section explains what is insured in reasonable detail for the reader today.
It has several sentences so that it does not count as a short subsection at all.

### Note

Short note.

## Fees

| Item | Fee |
|---|---|
| Base | 10 |

![logo](img/logo.png)
"""


def chunks(text: str, **opts) -> list[dict]:
    _, rows = chunk_document(
        RawDoc("d.md", "d.md", text), approximate_tokens, ChunkOptions(**opts)
    )
    return rows


def sections(rows):
    return [r for r in rows if r["granularity"] == "section"]


def test_heading_tree_breadcrumbs_types_and_parents():
    rows = sections(chunks(DOC, min_tokens=12))
    crumbs = [r["breadcrumb"] for r in rows]
    assert crumbs == ["Policy", "Policy", "Policy > Cover", "Policy > Fees"], crumbs
    types = [r["chunk_type"] for r in rows]
    assert types == ["orphan", "section", "merged", "table"], types
    assert "Short note." in rows[2]["generation_text"]  # the short ### merged into its parent
    assert rows[3]["has_image"] and "![logo](img/logo.png)" in rows[3]["generation_text"]
    parents = {
        r["chunk_id"]: r for r in chunks(DOC, min_tokens=12) if r["granularity"] == "parent"
    }
    assert all(r["parent_id"] in parents for r in rows[2:]), "sections under the title"


def test_subsection_keeps_its_parent_when_long_enough():
    rows = sections(chunks(DOC, min_tokens=1))
    note = next(r for r in rows if r["breadcrumb"].endswith("Note"))
    cover = next(r for r in rows if r["breadcrumb"] == "Policy > Cover")
    assert note["chunk_type"] == "subsection" and note["parent_id"] == cover["section_id"]


def test_document_without_headings_is_orphan_text():
    rows = sections(chunks("Just text.\n\nMore text.", min_tokens=1))
    assert [r["chunk_type"] for r in rows] == ["orphan"]
    assert rows[0]["breadcrumb"] == "d"  # the file stem stands in for a title


def test_ids_are_stable_and_local_to_a_change():
    first, again = sections(chunks(DOC)), sections(chunks(DOC))
    assert [r["chunk_id"] for r in first] == [r["chunk_id"] for r in again]
    changed = sections(chunks(DOC.replace("Intro of the policy.", "Intro, revised.")))
    same = [a["chunk_id"] == b["chunk_id"] for a, b in zip(first, changed)]
    assert same == [True, False, True, True], same


def test_pages_from_markers_and_form_feeds():
    text = "<!-- page: 4 -->\n# A\n\nOn four.\n<!-- page: 5 -->\n# B\n\nOn five.\f# C\n\nOn six."
    rows = sections(chunks(text, min_tokens=1))
    assert [(r["page_start"], r["page_end"]) for r in rows] == [(4, 4), (5, 5), (6, 6)]
    assert "page" not in "".join(r["generation_text"] for r in rows).lower()


def test_inline_image_bytes_are_not_kept():
    text = "# A\n\n![x](data:image/png;base64," + "QUJD" * 100 + ")\n"
    body = sections(chunks(text))[0]["generation_text"]
    assert "QUJDQUJD" not in body and "bytes omitted" in body


def long_document() -> str:
    rng_words = [f"word{i % 97}" for i in range(4000)]
    paragraphs = [" ".join(rng_words[i : i + 60]) + "." for i in range(0, 1800, 60)]
    sentences = " ".join(f"Sentence {i} says something about clause {i}." for i in range(120))
    run_on = " ".join(rng_words[:900])  # no full stop anywhere
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| r{i} | {i} |" for i in range(150))
    return (
        "# Big\n\n" + "\n\n".join(paragraphs) + f"\n\n## Clauses\n\n{sentences}\n\n"
        f"## Run-on\n\n{run_on}\n\n## Table\n\n{table}\n"
    )


def test_no_text_is_lost_and_parts_are_labelled():
    text = long_document()
    opts = dict(min_tokens=1, parent_child=False)
    rows = sections(chunks(text, **opts))
    clean = parse_markdown(text).text
    covered = [False] * len(clean)
    for r in rows:
        spans = list(zip(r["char_spans"][::2], r["char_spans"][1::2]))
        assert render(clean, spans) in r["generation_text"]
        for s, e in spans:
            covered[s:e] = [True] * (e - s)
    lost = "".join(c for c, ok in zip(clean, covered) if not ok and not c.isspace())
    assert lost == "", f"text not in any chunk: {lost[:200]!r}"
    words = re.findall(r"\S+", clean)
    delivered = " ".join(r["generation_text"] for r in rows)
    assert all(w in delivered for w in set(words))
    budget = ChunkOptions().content_budget
    by_section: dict[str, list[dict]] = {}
    for r in rows:
        by_section.setdefault(r["section_id"], []).append(r)
        if not r["has_table"]:
            assert r["n_tokens"] <= budget, (r["breadcrumb"], r["n_tokens"])
    assert all(len(parts) > 1 for parts in by_section.values())
    for parts in by_section.values():
        n = len(parts)
        assert [p["part_index"] for p in parts] == list(range(1, n + 1))
        assert all(p["part_count"] == n for p in parts)
        assert all(f"(part {p['part_index']} of {n})" in p["generation_text"] for p in parts)
    table = [r for r in rows if r["has_table"]]
    assert len(table) == 1 and table[0]["generation_text"].count("| r") == 150  # whole


def test_overlap_repeats_a_short_sentence_across_a_cut():
    text = "# S\n\n" + " ".join(f"Fact number {i} is stated here." for i in range(200))
    rows = sections(chunks(text, overlap=32))
    assert len(rows) > 2
    for a, b in zip(rows, rows[1:]):
        last = re.findall(r"Fact number \d+ is stated here\.", a["generation_text"])[-1]
        assert last in b["generation_text"], "the last sentence of a part opens the next one"


def test_representation_fits_the_model_budget_and_describes_tables():
    rows = sections(chunks(long_document(), min_tokens=1))
    opts = ChunkOptions()
    sizes = approximate_tokens([r["representation_text"] for r in rows])
    assert max(sizes) <= opts.vector_budget
    table = next(r for r in rows if r["has_table"])
    assert "Table with columns a, b (150 rows)." in table["representation_text"]


def test_children_are_small_and_point_to_their_parent():
    rows = chunks(long_document(), min_tokens=1, child_tokens=120)
    parents = {r["chunk_id"] for r in rows if r["granularity"] == "parent"}
    children = [r for r in rows if r["granularity"] == "child"]
    assert children and all(r["parent_id"] in parents for r in children)
    assert max(r["n_tokens"] for r in children if not r["has_table"]) <= 120


def test_sentence_window_rows():
    text = "# S\n\nOne is here. Two is here. Three is here. Four is here."
    rows = [r for r in chunks(text, sentence_window=1) if r["granularity"] == "sentence"]
    assert [r["representation_text"] for r in rows] == [
        "One is here.",
        "Two is here.",
        "Three is here.",
        "Four is here.",
    ]
    two = next(r for r in rows if r["representation_text"] == "Two is here.")
    assert two["generation_text"].endswith("One is here. Two is here. Three is here.")


def test_large_file_is_linear_enough(tmp_path):
    # A 4 MB file chunks in seconds; a 100 MB file is the same code path (see bench).
    import time

    text = long_document() * 40
    start = time.perf_counter()
    rows = sections(chunks(text, parent_child=False))
    assert time.perf_counter() - start < 30 and len(rows) > 100


@pytest.mark.parametrize("frame", ["pandas", "polars"])
def test_dataframe_source_with_pages(frame):
    from quaestio.retrieval import chunk_documents

    data = {
        "doc_id": ["a", "b"],
        "text": ["# T\n\nAlpha.\fBeta.", "Gamma."],
        "page_start": [7, None],
        "date": ["2024-05-01", None],
    }
    df = pd.DataFrame(data)
    if frame == "polars":
        import polars as pl

        df = pl.DataFrame(data)
    docs, rows = chunk_documents(df)
    sec = [r for r in rows.to_pylist() if r["granularity"] == "section"]
    assert (sec[0]["page_start"], sec[0]["page_end"]) == (7, 8)
    assert sec[1]["page_start"] is None
    assert str(docs.column("date")[0]) == "2024-05-01"


def test_describe_callable_writes_the_summary_and_descriptions():
    """A plain function stands in for the LLM here: the contract is only
    `describe(kind, text, title) -> str`."""
    from quaestio.retrieval import chunk_documents

    def describe(kind: str, text: str, title: str) -> str:
        return f"[{kind} of {title}]"

    docs, rows = chunk_documents(pd.DataFrame({"doc_id": ["a"], "text": [DOC]}), describe=describe)
    assert docs.column("summary")[0].as_py() == "[document of Policy]"
    sec = [r for r in rows.to_pylist() if r["granularity"] == "section"]
    assert all(r["representation_text"].startswith("Policy: [document of Policy]") for r in sec)
    assert "[chunk of Policy > Cover]" in sec[2]["representation_text"]
    assert "insured in reasonable detail" not in sec[2]["representation_text"]
    assert "insured in reasonable detail" in sec[2]["generation_text"]
