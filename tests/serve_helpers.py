"""A real uvicorn server on a free loopback port, in a thread, for the service tests."""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import uvicorn

from quaestio.serve import ServeConfig, create_app


class LiveServer:
    """`with LiveServer(ServeConfig(...)) as server: httpx.get(server.url + "/healthz")`."""

    def __init__(self, config: ServeConfig):
        self.app = create_app(config)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(
                self.app,
                log_level="warning",
                access_log=False,
                lifespan="on",
                timeout_graceful_shutdown=5,
            )
        )
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    @property
    def service(self):
        return self.app.state.service

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self.sock.close()


def read_events(
    client: httpx.Client, path: str, *, headers=None, stop_after=None, timeout: float = 30.0
) -> list[dict]:
    """The SSE events of a stream (id, event, data as JSON), until it ends or `stop_after`
    events were read."""
    from httpx_sse import connect_sse

    out = []
    with connect_sse(client, "GET", path, headers=headers or {}, timeout=timeout) as source:
        for sse in source.iter_sse():
            if not sse.data and sse.event == "message":  # a heartbeat comment
                continue
            out.append({"id": sse.id, "event": sse.event, "data": json.loads(sse.data)})
            if stop_after is not None and len(out) >= stop_after:
                break
    return out
