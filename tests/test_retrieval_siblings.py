"""Sibling restoration keeps the ranking: primaries first, nearest parts after, within a budget."""

from __future__ import annotations

import pandas as pd

from quaestio.retrieval import Funnel, build_index, search

TOPICS = ["storm", "flood", "theft", "glass", "boiler", "roof", "garden", "pets", "fire", "travel"]


def long_section_index():
    # One section of 40 paragraphs, each about its own numbered topic: it splits in 40 parts.
    paragraphs = [
        f"Paragraph {i} covers {TOPICS[i % 10]} claims number{i} under the policy. "
        + " ".join(f"filler{i}x{j}" for j in range(70))
        for i in range(40)
    ]
    text = "# Long policy\n\n## Terms\n\n" + "\n\n".join(paragraphs)
    docs = pd.DataFrame({"doc_id": ["long.md"], "text": [text]})
    return build_index(docs, embedding_model=None, parent_child=False)


def test_a_hit_in_a_40_part_section_keeps_rank_1_and_brings_at_most_the_budget():
    index = long_section_index()
    counts = set(index.chunks.column("part_count").to_pylist())
    assert counts == {40}, f"expected one section of 40 parts, got part counts {counts}"
    hits = search(index, "number17", backend="bm25", k=3, funnel=Funnel(siblings=2))
    primary = hits[hits.route.isna()]
    assert primary["rank"].tolist() == list(range(1, len(primary) + 1))
    assert hits["rank"].iloc[0] == 1 and hits.part_index.iloc[0] == 18
    assert "number17 " in hits.generation_text.iloc[0]
    siblings = hits[hits.route == "sibling"]
    assert len(siblings) <= 2 * len(primary), "at most the budget per hit"
    assert hits.index[hits.route == "sibling"].min() > hits.index[hits.route.isna()].max(), (
        "siblings come after every primary hit"
    )
    first = siblings[siblings.sibling_of == hits.chunk_id.iloc[0]]
    assert sorted(first.part_index.tolist()) == [17, 19], "nearest parts first"
    assert first.generation_text.str.contains(r"\(part \d+ of 40\)").all()
    assert siblings["rank"].min() > primary["rank"].max(), "a top-k cut never counts them"


def test_sibling_token_budget_and_switching_siblings_off():
    index = long_section_index()
    tight = search(
        index, "number17", backend="bm25", k=1, funnel=Funnel(siblings=6, sibling_tokens=1)
    )
    assert (tight.route == "sibling").sum() == 1, "the first sibling is always given"
    wide = search(
        index, "number17", backend="bm25", k=1, funnel=Funnel(siblings=4, sibling_tokens=None)
    )
    assert sorted(wide[wide.route == "sibling"].part_index) == [16, 17, 19, 20]
    off = search(index, "number17", backend="bm25", k=1, funnel=Funnel(siblings=False))
    assert len(off) == 1 and off.route.isna().all()
