"""How the parse reaches a refiner of its rows (the LLM mode) without importing it.

DESIGN §5: `analysis` never imports `quaestio.llm`. The parse takes, as `llm=`, any object
with the `DraftRefiner` methods (`quaestio.llm.LLM` is one). The conveniences `llm=True` and
`llm=LLMConfig(...)` are turned into one by the resolvers registered here; the top-level
package registers the LLM layer's (`quaestio/__init__.py`), which imports it only when a
caller actually asks for the LLM mode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class DraftRefiner(Protocol):
    """What the parse asks of the LLM mode: finish drafts whose offline steps have run."""

    def parse_draft(self, draft: Any, started: float, finish: Callable[..., dict]) -> dict: ...

    def parse_drafts(
        self,
        items: list[tuple[Any, float]],
        finish: Callable[..., dict],
        *,
        progress: bool | None = None,
    ) -> list[dict]: ...


Resolver = Callable[[Any, Any], "DraftRefiner | None"]
_RESOLVERS: list[Resolver] = []


def register_resolver(resolver: Resolver) -> Resolver:
    """Add `resolver(llm, satellites) -> DraftRefiner | None` for values such as True."""
    if resolver not in _RESOLVERS:
        _RESOLVERS.append(resolver)
    return resolver


def as_refiner(llm: Any, satellites: Any) -> DraftRefiner:
    """`llm=` as callers pass it, as a refiner; TypeError for what nothing can turn into one."""
    if isinstance(llm, DraftRefiner):
        return llm
    for resolver in _RESOLVERS:
        refiner = resolver(llm, satellites)
        if refiner is not None:
            return refiner
    raise TypeError(
        f"llm must be an LLM (quaestio.llm.LLM), an LLMConfig, True, or an object "
        f"with parse_draft/parse_drafts, not {type(llm).__name__}"
    )
