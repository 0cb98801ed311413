"""`bm25`: bm25s over the generation field, scoring the question's keywords by their weights.

Each keyword is tokenised like the corpus; a token weighs as its heaviest keyword (explicit
and anchor terms weigh most, dictionary variants of every language are included). A
dictionary variant the question does not contain weighs `variant_weight` (0.25) times its
row's weight: expansion should widen the pool, not outvote the question's own words (on
FinanceBench pages, BM25 with the dictionary: recall@5 0.44 → 0.49 and recall@50 0.73 → 0.82
against full-weight variants, better on both halves; hybrid recall@5 0.74 → 0.79;
`bench/retrieval_quality.py`). A question
without keywords (or `query="raw"`) is scored on its own words, all weighing 1, which is
plain BM25. A keyword is "matched" by a hit when the hit contains all of its tokens.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..analysis.batch import gc_paused
from .base import Backend, Hit, query_text
from .errors import BackendUnavailable

_TOKEN = re.compile(r"\w\w+|\d", re.UNICODE)


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN, STOPWORDS_FRENCH, STOPWORDS_SPANISH

    return frozenset(STOPWORDS_EN) | frozenset(STOPWORDS_FRENCH) | frozenset(STOPWORDS_SPANISH)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens (two letters or more, or digits), EN/FR/ES stopwords removed."""
    stop = stopwords()
    return [t for t in _TOKEN.findall(text.lower()) if t not in stop]


@lru_cache(maxsize=65536)
def _name_tokens(doc_id: str) -> tuple[str, ...]:
    stem = re.sub(r"\.(md|markdown|txt|text)$", "", doc_id.rsplit("/", 1)[-1], flags=re.I)
    return tuple(tokenize(re.sub(r"[_\W]+", " ", stem)))


def name_tokens(doc_id: str | None) -> list[str]:
    """The words of a document's name (its file name without extension)."""
    return list(_name_tokens(doc_id)) if doc_id else []


def _bm25s():
    try:
        import bm25s
    except ImportError as exc:
        raise BackendUnavailable("backend 'bm25'", "bm25s") from exc
    return bm25s


class BM25Backend(Backend):
    """BM25 (bm25s, Lucene variant) with keyword weights; see the module docstring."""

    name = "bm25"

    def __init__(
        self,
        *,
        granularity: str = "section",
        k1: float = 1.5,
        b: float = 0.75,
        sources: Sequence[str] | None = None,
        query: str = "keywords",
        variant_weight: float = 0.25,
    ):
        super().__init__(granularity=granularity)
        if query not in ("keywords", "raw"):
            raise ValueError(f"query must be 'keywords' or 'raw', not {query!r}")
        if not 0.0 <= variant_weight <= 1.0:
            raise ValueError(f"variant_weight must be between 0 and 1, not {variant_weight!r}")
        self.k1, self.b, self.query, self.variant_weight = k1, b, query, variant_weight
        self.sources = set(sources) if sources is not None else None
        self.model: Any = None  # a bm25s.BM25 once fitted (bm25s ships no types)

    def _fit(self) -> None:
        texts = self.indexed_chunks().column("generation_text").take(self.rows).to_pylist()
        names = self.indexed_chunks().column("doc_id").take(self.rows).to_pylist()
        # The document's name is a field of every chunk (as a search engine indexes the
        # file name): "under the MPL", "3M's 2018 10-K" name the document, not the passage.
        self.fit_tokens([tokenize(t) + name_tokens(n) for t, n in zip(texts, names)])

    def fit_tokens(self, corpus_tokens: list[list[str]]) -> None:
        bm25s = _bm25s()
        # bm25s rejects an empty vocabulary; an index of empty texts still answers (nothing).
        tokens = corpus_tokens if any(corpus_tokens) else [["\x00"]] * max(1, len(corpus_tokens))
        self.model = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
        self.model.index(tokens, show_progress=False)
        self._arrays()

    def _arrays(self) -> None:
        s = self.model.scores
        self.data, self.indptr = s["data"], s["indptr"]
        self.indices, self.num_docs = s["indices"], int(s["num_docs"])
        self.vocab = self.model.vocab_dict

    def restore(self, stored: dict, chunks) -> None:
        """Take the matrix an index folder stored (`storage`), for `chunks`."""
        from .base import rows_of

        self.chunks, self.rows = chunks, rows_of(chunks, self.granularity)
        self.data, self.indptr, self.indices = stored["data"], stored["indptr"], stored["indices"]
        self.num_docs, self.vocab = int(stored["num_docs"]), stored["vocab"]

    def weighted_query(self, record: dict) -> list[tuple[str, float, list[str]]]:
        """(keyword, weight, tokens) of one question record."""
        keywords = record.get("keywords") or []
        if self.sources is not None:
            keywords = [kw for kw in keywords if kw["source"] in self.sources]
        if self.query == "raw" or not keywords:  # a repeated word counts once per repeat
            return [(t, float(n), [t]) for t, n in Counter(tokenize(query_text(record))).items()]
        best: dict[str, float] = {}
        for kw in keywords:  # one term per keyword text, at its heaviest weight
            weight = float(kw["weight"])
            if kw["source"] == "expert_dictionary" and kw.get("span_start") is None:
                weight *= self.variant_weight  # a variant the question does not contain
            best[kw["text"]] = max(best.get(kw["text"], 0.0), weight)
        return [(text, w, tokenize(text)) for text, w in best.items()]

    def retrieve(self, records: list[dict], k: int, allow=None) -> list[list[Hit]]:
        with gc_paused():
            return self._retrieve(records, k, allow)

    def _retrieve(self, records: list[dict], k: int, allow) -> list[list[Hit]]:
        from ._kernels import topk

        vocab = self.vocab
        out: list[list[Hit]] = []
        for n, record in enumerate(records):
            terms = self.weighted_query(record)
            raw = self.query == "raw" or not record.get("keywords")
            col_of: dict[int, int] = {}
            ids: list[int] = []
            weights: list[float] = []
            term_ptr, term_cols = [0], []
            for _, w, toks in terms:
                cols = []
                for t in toks:
                    tid = vocab.get(t)
                    if tid is None:
                        cols.append(-1)
                        continue
                    c = col_of.get(tid)
                    if c is None:
                        c = col_of[tid] = len(ids)
                        ids.append(tid)
                        weights.append(w)
                    else:  # raw BM25 sums repeated words; keywords take their heaviest weight
                        weights[c] = weights[c] + w if raw else max(weights[c], w)
                    cols.append(c)
                term_cols += cols
                term_ptr.append(len(term_cols))
            if not ids:
                out.append([])
                continue
            mask = self.local_mask(allow[n]) if allow is not None else None
            top, scores, match = topk(
                self.data,
                self.indptr,
                self.indices,
                self.num_docs,
                np.asarray(ids, dtype=np.int64),
                np.asarray(weights, dtype=np.float32),
                np.asarray(term_ptr, dtype=np.int64),
                np.asarray(term_cols, dtype=np.int64),
                mask,
                k,
            )
            used = np.flatnonzero(match.any(axis=0)).tolist()  # keywords some hit holds
            names = [terms[j][0] for j in used]
            flags = match[:, used].tolist()
            rows = self.rows[top].tolist()
            out.append(
                [
                    Hit(
                        row,
                        score,
                        {
                            "matched_keywords": [n for n, f in zip(names, fl) if f],
                            "bm25_rank": i,
                            "bm25_score": score,
                        },
                    )
                    for i, (row, score, fl) in enumerate(zip(rows, scores.tolist(), flags), 1)
                ]
            )
        return out
