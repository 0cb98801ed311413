"""Sections from plain text: numbered clauses and their nesting, Section/Article/Annex… in
EN/FR/ES, Roman numerals, ALL-CAPS titles and form feeds, with the same chunk rows as Markdown."""

from __future__ import annotations

import pandas as pd
import pytest

from quaestio.retrieval import build_index
from quaestio.retrieval.markdown import parse_markdown

CONTRACT = """SERVICES AGREEMENT

This agreement is made between Acme Ltd and Globex SA.

1. Definitions

1.1 "Services" means the services described in Annex A.

1.2 "Fees" means the amounts set out in clause 4.

2. Term

The agreement runs for three years. Section 6 states what happens at the end.
    7. This numbered line inside clause 2 is not a heading.

3. Termination

3.1 Either party may terminate for convenience with 90 days' notice.

3.2 Termination for breach requires written notice.

ANNEX A - SERVICES

Hosting and support.
"""


def titles(text: str) -> list[tuple[int, str]]:
    return [(n.level, n.title) for n in parse_markdown(text).nodes if n.level]


def test_numbered_clauses_nest_and_a_stray_number_or_a_reference_stays_text():
    heads = titles(CONTRACT)
    names = [t for _, t in heads]
    assert names == [
        "SERVICES AGREEMENT",
        "1. Definitions",
        '1.1. "Services" means the services described in Annex A',
        '1.2. "Fees" means the amounts set out in clause 4',
        "2. Term",
        "3. Termination",
        "3.1. Either party may terminate for convenience with …",
        "3.2. Termination for breach requires written notice",
        "ANNEX A - SERVICES",
    ], names
    levels = dict((t, lv) for lv, t in heads)
    assert (
        levels["1. Definitions"]
        < levels['1.1. "Services" means the services described in Annex A']
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "ARTICLE I\nDEFINITIONS\n\nWords.\n\nARTICLE II\nTERM\n\nThree years.\n",
            ["ARTICLE I DEFINITIONS", "ARTICLE II TERM"],
        ),
        (
            "Chapitre 1 - Objet\n\nLe contrat.\n\nArticle 1 : Durée\n\nTrois ans.\n\n"
            "Annexe A\n\nTarifs.\n",
            ["Chapitre 1 - Objet", "Article 1 : Durée", "Annexe A"],
        ),
        (
            "Capítulo I. Disposiciones generales\n\nTexto.\n\nArtículo 5. Plazo\n\nTres años.\n\n"
            "Anexo 1\n\nPrecios.\n",
            ["Capítulo I. Disposiciones generales", "Artículo 5. Plazo", "Anexo 1"],
        ),
        (
            "I. SCOPE\n\nThe scope.\n\nII. PAYMENT\n\nThirty days.\n\nIV. NOT NEXT\n\nx\n",
            ["I. SCOPE", "II. PAYMENT"],
        ),
        (
            "Schedule 1\n\nPrices.\n\nSection 4. Liability\n\nCapped.\n\n"
            "Clause 7 Notices\n\nBy mail.\n",
            ["Schedule 1", "Section 4. Liability", "Clause 7 Notices"],
        ),
    ],
)
def test_keyword_and_roman_headings_in_each_language(text, expected):
    assert [t for _, t in titles(text)] == expected


def test_a_form_feed_page_break_starts_a_paragraph_and_a_page():
    text = "PART ONE\n\nFirst page text.\fPART TWO\n\nSecond page text.\n"
    doc = parse_markdown(text)
    assert [n.title for n in doc.nodes if n.level] == ["PART ONE", "PART TWO"]
    second = next(n for n in doc.nodes if n.title == "PART TWO")
    assert doc.page_at(second.start) == 2


def test_running_headers_and_prose_are_not_headings():
    page = "CONFIDENTIAL\n\nThe parties agree to the terms below and to nothing else.\n"
    assert parse_markdown((page + "\f") * 4).nodes[0].level == 0
    assert titles("Section 6 states the terms.\n\nSection 7 adds more terms.\n") == []


def test_plain_text_gets_markdown_like_chunks_with_breadcrumbs_and_stable_ids():
    docs = pd.DataFrame({"doc_id": ["contract.txt"], "text": [CONTRACT]})
    first = build_index(docs, embedding_model=None)
    again = build_index(docs, embedding_model=None)
    assert (
        first.chunks.column("chunk_id").to_pylist() == again.chunks.column("chunk_id").to_pylist()
    )
    import pyarrow.compute as pc

    sections = first.chunks.filter(pc.equal(first.chunks.column("granularity"), "section"))
    crumbs = sections.column("breadcrumb").to_pylist()
    assert len(set(crumbs)) > 3, crumbs
    assert any("SERVICES AGREEMENT > 3. Termination > 3.1." in c for c in crumbs), crumbs
    text = "\n".join(sections.column("generation_text").to_pylist())
    assert "90 days' notice" in text and "Hosting and support." in text
