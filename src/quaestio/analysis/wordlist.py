"""A language's general word list, for spelling correction: folded word → (frequency, surface).

The lists ship in the `pyspellchecker` package as gzipped JSON; reading one and folding its
~160,000 English words costs most of a second, more than the rest of a first question. The
folded list is kept for the next process in `$QUAESTIO_CACHE` through the cross-process
cache of `satellites.facts` (same folder, same off switch, atomic writes), as three sorted
parallel arrays (a marshal dump behind its sha256, `facts.write_sealed`: twice as fast to
read as the JSON it was) that are searched by bisection, so no dict of 160,000 entries is
built either. The file's name carries what its content depends on: the
list's size and date and a digest of `fold` on probe characters. A file is used only after
it passed its checks (well-formed, the expected name inside, sorted words of the same number
as their counts); anything else is rebuilt and rewritten.
"""

from __future__ import annotations

import hashlib
import importlib.util
from array import array
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..satellites import facts
from .text import fold

_FORMAT = 2  # 1: JSON; 2: a sealed marshal dump
# Characters whose folding would change the cached keys if `fold` changed.
_PROBE = "AÉèßœﬁİıÑçÅøǅ①ａ’-é"


class Vocabulary:
    """Read-only mapping of folded word → (frequency, surface as written, with accents)."""

    __slots__ = ("_words", "_counts", "_surfaces", "_set")

    def __init__(self, words: list[str], counts: list[int], surfaces: dict[str, str]):
        self._words = words  # sorted, unique
        self._counts = counts
        self._surfaces = surfaces  # only where the surface differs from the folded word
        self._set: frozenset[str] | None = None

    def among(self, words: set[str]) -> set[str]:
        """The words of `words` that the list holds, as one set intersection: a word's
        ~500 one-edit variants cost ~300 µs looked up one bisection at a time. The set is
        built on first use (~30 ms, ~8 MB for English), by the first unknown word."""
        if self._set is None:
            self._set = frozenset(self._words)
        return words & self._set

    def _at(self, word: str) -> int:
        i = bisect_left(self._words, word)
        return i if i < len(self._words) and self._words[i] == word else -1

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        if self._set is not None:  # built by `among`: a hash lookup beats the bisection
            return word in self._set
        return self._at(word) >= 0

    def __getitem__(self, word: str) -> tuple[int, str]:
        i = self._at(word)
        if i < 0:
            raise KeyError(word)
        return self._counts[i], self._surfaces.get(word, word)

    def get(self, word: str, default: Any = None) -> Any:
        return self[word] if word in self else default

    def __len__(self) -> int:
        return len(self._words)

    def count(self, word: str) -> int:
        """The frequency of `word`, 0 when it is not in the list."""
        i = self._at(word)
        return self._counts[i] if i >= 0 else 0

    def total(self) -> int:
        """The summed frequencies of every word (what a relative frequency divides by)."""
        return sum(self._counts)

    def __iter__(self):
        return iter(self._words)


_EMPTY = Vocabulary([], [], {})


@lru_cache(maxsize=8)
def language_vocabulary(language: str) -> Vocabulary:
    """The word list of `language` (from the cache when a valid copy is there); empty for a
    language pyspellchecker does not have."""
    source = _source(language)
    path = facts.cache_file(_cache_name(language, source)) if source else None
    if path is not None:
        cached = _checked(facts.read_sealed(path), path.name)
        if cached is not None:
            return cached
    vocab = _build(language)
    if path is not None and len(vocab):
        facts.write_sealed(path, _dump(vocab, path.name))
    return vocab


def _source(language: str) -> Path | None:
    """The shipped list of `language`, found without importing the package."""
    spec = importlib.util.find_spec("spellchecker")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "resources" / f"{language.lower()}.json.gz"
        if path.is_file():
            return path
    return None


def _cache_name(language: str, source: Path) -> str:
    stat = source.stat()
    fold_digest = hashlib.blake2b(fold(_PROBE).encode(), digest_size=4).hexdigest()
    version = f"{stat.st_size}-{stat.st_mtime_ns}-{fold_digest}"
    return f"wordlist-v{_FORMAT}-{language.lower()}-{version}.marshal"


def _build(language: str) -> Vocabulary:
    from spellchecker import SpellChecker

    try:
        frequencies = SpellChecker(language=language, distance=1).word_frequency.dictionary
    except ValueError:
        return _EMPTY
    best: dict[str, tuple[int, str]] = {}
    for word, count in frequencies.items():
        key = fold(word)
        if count > best.get(key, (0, ""))[0]:
            best[key] = (count, word)
    words = sorted(best)
    return Vocabulary(
        words,
        [best[w][0] for w in words],
        {w: best[w][1] for w in words if best[w][1] != w},
    )


def _dump(vocab: Vocabulary, name: str) -> dict[str, Any]:
    return {
        "name": name,
        "words": vocab._words,
        "counts": vocab._counts,
        "surfaces": vocab._surfaces,
    }


def _checked(data: Any, name: str) -> Vocabulary | None:
    """The cached list, or None when the file was missing, damaged or fails any check."""
    if not isinstance(data, dict) or data.get("name") != name:
        return None
    words, counts, surfaces = data.get("words"), data.get("counts"), data.get("surfaces")
    if not (
        isinstance(words, list)
        and isinstance(counts, list)
        and isinstance(surfaces, dict)
        and len(words) == len(counts) > 0
    ):
        return None
    try:  # C-speed checks: str words, int counts, sorted order (what bisection needs)
        "".join(words)
        "".join(surfaces.values())
        array("q", counts)
    except (TypeError, OverflowError):
        return None
    if words != sorted(words):
        return None
    return Vocabulary(words, counts, surfaces)
