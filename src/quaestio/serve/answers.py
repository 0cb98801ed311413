"""Answers: streamed from an OpenAI-compatible server, or extractive offline.

The offline answer never writes a sentence of its own: it is the confirmed value with the
sentence it was found in and its citation, or the `not_found` row of `prompt_parts`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from ..satellites import Satellites
from .prompt import Prompt, citation, not_found_text

_CITED = re.compile(r"\[(\d{1,3})\]")


def extractive(
    row: dict[str, Any],
    hits: list[dict[str, Any]],
    verdict: dict[str, Any] | None,
    values: list[dict[str, Any]],
    sats: Satellites,
) -> dict[str, Any]:
    """The confirmed value, its sentence and citation; or an explicit "not found"."""
    if verdict and verdict.get("verdict") == "found" and verdict.get("chunk_id"):
        hit = next((h for h in hits if h.get("chunk_id") == verdict["chunk_id"]), None)
        zone = next(
            (
                v.get("zone_text")
                for v in values
                if v.get("chunk_id") == verdict["chunk_id"]
                and v.get("value_text") == verdict.get("value_text")
            ),
            None,
        )
        value = verdict.get("value_text") or verdict.get("value")
        if hit is not None and value:
            sentence = " ".join(str(zone or "").split())
            text = f"{value} — “{sentence}” [1]" if sentence else f"{value} [1]"
            return {
                "text": text,
                "citations": [citation(1, hit)],
                "mode": "extractive",
                "found": True,
            }
    return {
        "text": not_found_text(sats, row.get("language")),
        "citations": [],
        "mode": "extractive",
        "found": False,
    }


def cited(text: str, prompt: Prompt) -> list[dict[str, Any]]:
    """The passages the answer cites as [n]; all of them when it cites none."""
    numbers = {int(n) for n in _CITED.findall(text)}
    chosen = [p for p in prompt.passages if p["n"] in numbers]
    return chosen or list(prompt.passages)


async def stream_answer(
    client,
    model: str,
    prompt: Prompt,
    on_token: Callable[[str], Awaitable[None]],
    *,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """Stream one answer (`stream=True`), calling `on_token` per delta.

    Cancelling the task that awaits this closes the HTTP stream, so the server stops
    generating (a client that went away costs no more tokens).
    """
    stream = await client.chat.completions.create(
        model=model,
        messages=prompt.messages,
        stream=True,
        temperature=0,
        stream_options={"include_usage": True},
        **({"max_tokens": max_tokens} if max_tokens else {}),
    )
    pieces: list[str] = []
    usage = None
    try:
        async for chunk in stream:
            for choice in chunk.choices or ():
                delta = choice.delta.content if choice.delta else None
                if delta:
                    pieces.append(delta)
                    await on_token(delta)
            usage = chunk.usage or usage
    finally:
        await stream.close()
    text = "".join(pieces)
    return {
        "text": text,
        "citations": cited(text, prompt),
        "mode": "llm",
        "found": None,
        "tokens_in": getattr(usage, "prompt_tokens", None),
        "tokens_out": getattr(usage, "completion_tokens", None),
    }
