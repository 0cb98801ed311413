"""Markdown by markdown-it-py and PyYAML, sentences by sentencex: what the regexes got wrong."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from quaestio.retrieval import build_index
from quaestio.retrieval.markdown import parse_markdown
from quaestio.retrieval.splitting import sentence_spans


def test_yaml_front_matter_keeps_lists_dates_and_quotes():
    doc = parse_markdown(
        "---\ntitle: 'Deed: A'\nparties:\n  - Acme Ltd\n  - Globex SA\n"
        "date: 2024-03-01\njurisdiction: [DE, FR]\n---\n# Deed\n\nText.\n"
    )
    assert doc.meta == {
        "title": "Deed: A",
        "parties": ["Acme Ltd", "Globex SA"],
        "date": dt.date(2024, 3, 1),
        "jurisdiction": ["DE", "FR"],
    }
    assert doc.text.startswith("# Deed")


def test_front_matter_that_is_not_yaml_falls_back_to_key_value_lines():
    doc = parse_markdown("---\ntitle: A: b: [c\nauthor: Jane\n---\nBody.\n")
    assert doc.meta["author"] == "Jane" and doc.text == "Body.\n"


def test_no_heading_is_read_inside_code_html_or_indented_blocks():
    text = (
        "# Guide\n\n```\n# not a heading\n```\n\n    # indented code\n\n"
        "<div>\n# html block\n</div>\n\n## Real section\n\nText.\n"
    )
    assert [(n.level, n.title) for n in parse_markdown(text).nodes] == [
        (1, "Guide"),
        (2, "Real section"),
    ]


def test_setext_headings_and_numbered_lists_are_told_apart():
    text = "Title\n=====\n\nIntro.\n\nPart\n----\n\n1. item one\n2. item two\n"
    assert [(n.level, n.title) for n in parse_markdown(text).nodes] == [(1, "Title"), (2, "Part")]


def test_sentences_do_not_end_at_abbreviations_colons_or_wrapped_lines():
    text = (
        "See Art. 5 of the U.S. Code, e.g. the rules: they apply to\nevery party; "
        "Mr. Smith agreed. Next sentence."
    )
    spans = sentence_spans(text, 0, len(text))
    assert [text[s:e] for s, e in spans] == [
        "See Art. 5 of the U.S. Code, e.g. the rules: they apply to\nevery party; "
        "Mr. Smith agreed.",
        "Next sentence.",
    ]
    es = "Véase el art. 5 del código, p. ej. las reglas. El Sr. García pagó."
    assert len(sentence_spans(es, 0, len(es), "es")) == 2


def test_chunk_ids_are_stable_across_builds_and_cover_every_word():
    words = " ".join(f"Sentence number {i} ends here." for i in range(400))
    docs = pd.DataFrame({"doc_id": ["a.md"], "text": [f"# A\n\n## Long\n\n{words}\n"]})
    one, two = (build_index(docs, embedding_model=None, parent_child=False) for _ in range(2))
    ids = one.chunks.column("chunk_id").to_pylist()
    assert ids == two.chunks.column("chunk_id").to_pylist() and len(ids) > 3
    text = " ".join(one.chunks.column("generation_text").to_pylist())
    assert all(f"number {i} ends" in text for i in range(400))
