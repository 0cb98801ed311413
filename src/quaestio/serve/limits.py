"""Per-key rate limit (token buckets) and the request-body cap, as plain ASGI."""

from __future__ import annotations

import json
import math
import threading
import time


class RateLimiter:
    """One token bucket per key: `burst` requests at once, refilled at `per_minute`."""

    def __init__(self, per_minute: float, burst: int, *, max_keys: int = 10_000):
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when the request may go on, else the seconds until a token is back."""
        now = time.monotonic()
        with self._lock:
            tokens, then = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens >= 1.0:
                self._remember(key, (tokens - 1.0, now))
                return 0.0
            self._remember(key, (tokens, now))
            return (1.0 - tokens) / self.rate if self.rate > 0 else math.inf

    def _remember(self, key: str, state: tuple[float, float]) -> None:
        # Bounded: a flood of distinct names must not grow the dict without end.
        if key not in self._buckets and len(self._buckets) >= self.max_keys:
            self._buckets.pop(next(iter(self._buckets)))
        self._buckets[key] = state


class BodyLimit:
    """413 for a body over `max_bytes`: by its Content-Length, or while it streams in."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            return await too_large(send, self.max_bytes)
        seen = 0

        async def counted():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge()
            return message

        try:
            await self.app(scope, counted, send)
        except BodyTooLarge:
            await too_large(send, self.max_bytes)


class BodyTooLarge(Exception):
    pass


async def too_large(send, max_bytes: int) -> None:
    body = json.dumps(
        {
            "type": "about:blank",
            "title": "Payload Too Large",
            "status": 413,
            "detail": f"the request body is over {max_bytes} bytes",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
