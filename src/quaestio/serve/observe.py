"""Prometheus metrics and one JSON log line per request, as one ASGI middleware."""

from __future__ import annotations

import json
import logging
import os
import time
import uuid

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

log = logging.getLogger("quaestio.serve.access")


def rss_bytes() -> int:
    """Resident set size of this process (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class Metrics:
    """The service's metrics, in a registry of their own (one per app)."""

    def __init__(self):
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "quaestio_requests",
            "Requests by route and status",
            ["route", "method", "status"],
            registry=r,
        )
        self.latency = Histogram(
            "quaestio_request_seconds",
            "Request latency by route",
            ["route"],
            registry=r,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
        )
        self.llm_status = Counter(
            "quaestio_llm_status", "Parsed rows by llm_status", ["status"], registry=r
        )
        self.open_streams = Gauge("quaestio_open_streams", "Event streams open", registry=r)
        self.turns = Counter(
            "quaestio_turns", "Conversation turns by outcome", ["outcome"], registry=r
        )
        self.answer_tokens = Counter(
            "quaestio_answer_tokens", "LLM tokens of answers", ["direction"], registry=r
        )
        rss = Gauge("quaestio_process_rss_bytes", "Resident set size", registry=r)
        rss.set_function(rss_bytes)

    def count_rows(self, statuses) -> None:
        for status in statuses:
            self.llm_status.labels(str(status or "off").split(":")[0]).inc()


class Observe:
    """Request id (X-Request-ID, kept when the client sends a sane one), metrics, access log."""

    def __init__(self, app, metrics: Metrics):
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        sent = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = sent if 0 < len(sent) <= 64 and sent.isprintable() else uuid.uuid4().hex
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        status = 500

        async def tagged(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                # Server-Timing: time in the server, and in the library call ("work"), so a
                # client can tell the HTTP layer's share from the network's and its own.
                timing = f"app;dur={(time.perf_counter() - started) * 1000:.3f}"
                if "work_ms" in state:
                    timing += f", work;dur={state['work_ms']:.3f}"
                message["headers"] = list(message.get("headers", [])) + [
                    (b"x-request-id", request_id.encode()),
                    (b"server-timing", timing.encode()),
                ]
            await send(message)

        try:
            await self.app(scope, receive, tagged)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            seconds = time.perf_counter() - started
            self.metrics.requests.labels(route, scope["method"], str(status)).inc()
            self.metrics.latency.labels(route).observe(seconds)
            principal = state.get("principal")
            log.info(
                json.dumps(
                    {
                        "ts": round(time.time(), 3),
                        "request_id": request_id,
                        "method": scope["method"],
                        "route": route,
                        "status": status,
                        "ms": round(seconds * 1000, 2),
                        "key": principal.name if principal is not None else None,
                        "client": (scope.get("client") or ("-",))[0],
                    }
                )
            )
