"""Backends by name. A factory is `factory(index, **options) -> Retriever`; built-ins
register themselves below, third parties with `register_backend`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UnknownNameError

Factory = Callable[..., Any]
_REGISTRY: dict[str, Factory] = {}


def register_backend(name: str, factory: Factory | None = None, *, force: bool = False):
    """Register `factory` under `name` (usable as a decorator). An existing name is replaced
    only with `force=True`."""

    def add(f: Factory) -> Factory:
        if name in _REGISTRY and not force:
            raise ValueError(
                f"backend {name!r} is already registered; pass force=True to replace it"
            )
        _REGISTRY[name] = f
        return f

    return add(factory) if factory is not None else add


def list_backends() -> list[str]:
    return sorted(_REGISTRY)


def get_backend(name: str, index: Any, **options: Any):
    """The backend `name` bound to `index`, built with `options`."""
    if name not in _REGISTRY:
        raise UnknownNameError("backend", name, _REGISTRY)
    return _REGISTRY[name](index, **options)


def _with(base, **options):
    # A new backend object sharing the fitted state (matrix, vectors) of the stored one.
    clone = type(base)(granularity=base.granularity, **options) if options else base
    if clone is not base:
        for key in (
            "chunks",
            "rows",
            "model",
            "data",
            "indptr",
            "indices",
            "num_docs",
            "vocab",
            "vectors",
            "embedder",
        ):
            if key in base.__dict__:
                setattr(clone, key, base.__dict__[key])
    return clone


@register_backend("bm25")
def _bm25(index, *, granularity: str = "section", **options):
    return _with(index.base("bm25", granularity), **options)


@register_backend("dense")
def _dense(index, *, granularity: str = "section", model: str | None = None, **options):
    base = index.base("dense", granularity, model)
    return _with(base, model=base.embedder.name, **options) if options else base


@register_backend("hybrid")
def _hybrid(
    index,
    *,
    granularity: str = "section",
    weights=(1.0, 1.0),
    rrf_k: int = 60,
    depth: int = 50,
    model: str | None = None,
    bm25: dict | None = None,
    dense: dict | None = None,
):
    from .hybrid import HybridBackend

    sources = [
        _bm25(index, granularity=granularity, **(bm25 or {})),
        _dense(index, granularity=granularity, model=model, **(dense or {})),
    ]
    return HybridBackend(sources=sources, weights=weights, rrf_k=rrf_k, depth=depth)


@register_backend("parent")
def _parent(index, *, inner: str | None = None, **options):
    from .parent import ParentBackend

    inner = inner or ("hybrid" if index.embedding_model else "bm25")
    backend = ParentBackend(inner=get_backend(inner, index, granularity="child", **options))
    backend.attach(index.chunks)
    return backend


@register_backend("sentence")
def _sentence(index, *, inner: str | None = None, **options):
    inner = inner or ("hybrid" if index.embedding_model else "bm25")
    return get_backend(inner, index, granularity="sentence", **options)
