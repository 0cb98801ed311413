"""A corpus as rows (doc_id, language, text), and which dictionary variants occur in it.

A corpus is a folder or file of Markdown/text, a JSONL/CSV/Parquet file with a `text`
column, or a DataFrame with one. Each document's language comes from a `language` column
when there is one, else from the `stopwords` rows (the language whose function words it uses
most), the same evidence the question parser uses.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import ahocorasick
import polars as pl

from ..analysis.text import TOKEN_RE, fold, fold_word, strip_accents
from ..satellites import Satellites
from .reports import as_polars

TABLE_SUFFIXES = {".jsonl": "ndjson", ".ndjson": "ndjson", ".csv": "csv", ".parquet": "parquet"}


def read_corpus(
    source: Any, sats: Satellites, *, text_column: str = "text", language: str | None = None
) -> pl.DataFrame:
    """The corpus as a polars frame: doc_id, language, text (empty texts dropped).

    Args:
        source: A folder or file (.md, .txt, .jsonl, .csv, .parquet), or a DataFrame.
        sats: Satellites whose `stopwords` rows detect each document's language.
        text_column: Where the text is, in a table or DataFrame.
        language: Force one language for every document instead of detecting it.
    """
    if isinstance(source, (str, Path)) and Path(source).suffix.lower() in TABLE_SUFFIXES:
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"no such corpus file: {path}")
        fmt = TABLE_SUFFIXES[path.suffix.lower()]
        readers: dict[str, Callable[[Path], pl.DataFrame]] = {
            "ndjson": pl.read_ndjson,
            "parquet": pl.read_parquet,
            "csv": lambda p: pl.read_csv(p, infer_schema=False),
        }
        frame = readers[fmt](path)
        source = frame
    if isinstance(source, (str, Path, list, tuple)):
        from ..retrieval.sources import iter_documents

        docs = list(iter_documents(source))
        frame = pl.DataFrame(
            {"doc_id": [d.doc_id for d in docs], "text": [d.text for d in docs]},
            schema={"doc_id": pl.String, "text": pl.String},
        )
    else:
        frame = as_polars(source)
        if text_column not in frame.columns:
            raise ValueError(f"the corpus needs a {text_column!r} column; it has {frame.columns}")
        frame = frame.rename({text_column: "text"}) if text_column != "text" else frame
        if "doc_id" not in frame.columns:
            frame = frame.with_row_index("doc_id").with_columns(pl.col("doc_id").cast(pl.String))
        frame = frame.with_columns(pl.col("doc_id").cast(pl.String))
    frame = frame.filter(pl.col("text").is_not_null() & (pl.col("text").str.strip_chars() != ""))
    if language:
        langs = [language] * frame.height
    elif "language" in frame.columns:
        langs = [
            lang or detect_language(t, sats)
            for lang, t in zip(frame["language"].to_list(), frame["text"].to_list())
        ]
    else:
        langs = [detect_language(t, sats) for t in frame["text"].to_list()]
    return frame.select("doc_id", pl.Series("language", langs, dtype=pl.String), "text")


def _stopword_languages(sats: Satellites) -> dict[str, frozenset[str]]:
    index: dict[str, set[str]] = defaultdict(set)
    for lang, word in (
        sats.stopwords.filter(kind="function").select("language", "word").iter_rows()
    ):
        index[fold(word)].add(lang)
    return {w: frozenset(v) for w, v in index.items()}


def detect_language(text: str, sats: Satellites, *, sample: int = 2000) -> str:
    """The language whose function words the first `sample` tokens use most."""
    index = sats.cached("curation_stopword_languages", _stopword_languages)
    scores: Counter[str] = Counter()
    for i, m in enumerate(TOKEN_RE.finditer(text)):
        if i >= sample:
            break
        for lang in index.get(fold(m.group()), ()):
            scores[lang] += 1
    default = sats.defaults.default_language
    if not scores:
        return default
    best = max(scores.values())
    winners = sorted(lang for lang, s in scores.items() if s == best)
    return default if default in winners else winners[0]


class CorpusCoverage(NamedTuple):
    """How the dictionary's variants meet a corpus."""

    variants: pl.DataFrame  # concept, language, keyword, occurrences, docs, doc_languages
    absent: pl.DataFrame  # the variants with no occurrence
    single_language: pl.DataFrame  # concept, found_in, missing_languages, occurrences


def corpus_coverage(corpus: Any, sats: Satellites, **read_options: Any) -> CorpusCoverage:
    """Which validated variants occur in `corpus`, and concepts found in one language only.

    Matching is on folded tokens (case and accents ignored), on word boundaries, as the
    parser matches questions. `single_language` lists the concepts whose variants occur in
    documents of one language while the corpus holds others: the variants a translation
    would need are missing there.
    """
    docs = corpus if _is_read(corpus) else read_corpus(corpus, sats, **read_options)
    rows = sats.concept_keywords.filter(status="validated").select(
        "concept", "language", "keyword", "match"
    )
    # A `match=cased` row (a code such as IS, AND, TO) is looked up in the case-kept form,
    # as the parser does: "is" and "and" in a text are not Iceland and Andorra.
    keys = [
        (match == "cased", " " + _key(k, match == "cased") + " ")
        for k, match in rows.select("keyword", "match").iter_rows()
    ]
    automata = {cased: ahocorasick.Automaton() for cased in (False, True)}
    for cased, key in set(keys):
        if key.strip():
            automata[cased].add_word(key, (cased, key))
    occurrences: Counter[tuple[bool, str]] = Counter()
    in_docs: dict[tuple[bool, str], set[str]] = defaultdict(set)
    langs_of: dict[tuple[bool, str], set[str]] = defaultdict(set)
    for cased, automaton in automata.items():
        if not len(automaton):
            continue
        automaton.make_automaton()
        for doc_id, lang, text in docs.iter_rows():
            padded = " " + _key(text, cased) + " "
            for _, key in automaton.iter(padded):
                occurrences[key] += 1
                in_docs[key].add(doc_id)
                langs_of[key].add(lang)
    rows = rows.drop("match")
    variants = rows.with_columns(
        pl.Series("occurrences", [occurrences[k] for k in keys], dtype=pl.Int64),
        pl.Series("docs", [len(in_docs[k]) for k in keys], dtype=pl.Int64),
        pl.Series("doc_languages", [sorted(langs_of[k]) for k in keys], dtype=pl.List(pl.String)),
    )
    corpus_langs = set(docs["language"].unique().to_list())
    found = (
        variants.filter(pl.col("occurrences") > 0)
        .group_by("concept")
        .agg(
            pl.col("doc_languages").explode().unique().sort().alias("found_in"),
            pl.col("occurrences").sum(),
        )
    )
    single = (
        found.filter(pl.col("found_in").list.len() == 1)
        .with_columns(
            pl.col("found_in")
            .map_elements(lambda f: sorted(corpus_langs - set(f)), return_dtype=pl.List(pl.String))
            .alias("missing_languages")
        )
        .filter(pl.col("missing_languages").list.len() > 0)
        .select("concept", "found_in", "missing_languages", "occurrences")
        .sort("occurrences", descending=True)
    )
    return CorpusCoverage(variants, variants.filter(pl.col("occurrences") == 0), single)


def _key(text: str, cased: bool) -> str:
    """Tokens joined by single spaces: folded, or (cased) accents stripped, case kept."""
    form = strip_accents if cased else fold_word
    return " ".join(form(m.group()) for m in TOKEN_RE.finditer(text))


def _is_read(corpus: Any) -> bool:
    return isinstance(corpus, pl.DataFrame) and corpus.columns == ["doc_id", "language", "text"]
