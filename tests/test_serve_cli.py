"""`quaestio serve` as a process: loopback without keys, a JSON log line per request,
a graceful stop on SIGTERM; `quaestio serve-key`."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest
from click.testing import CliRunner

pytest.importorskip("fastapi")

from quaestio.cli import cli  # noqa: E402
from quaestio.retrieval import build_index  # noqa: E402
from quaestio.serve.auth import KeyRing  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_key_prints_the_key_once_and_a_line_that_admits_it(tmp_path):
    result = CliRunner().invoke(cli, ["serve-key", "analyst", "team-a"])
    assert result.exit_code == 0, result.output
    line = result.stdout.strip()
    key = result.stderr.split(": ", 1)[1].strip()
    assert key not in line and line.endswith(" analyst team-a")
    (tmp_path / "keys").write_text(line + "\n")
    assert KeyRing.load(tmp_path / "keys", env="").identify(key).name == "team-a"


def test_serve_process_binds_loopback_without_keys_logs_and_stops_gracefully(tmp_path):
    build_index("examples/corpus", tmp_path / "index", embedding_model=None)
    port = free_port()
    env = {**os.environ, "QUAESTIO_API_KEYS": ""}
    env.pop("QUAESTIO_API_KEYS_FILE", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "quaestio",
            "serve",
            "--index",
            str(tmp_path / "index"),
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--store",
            str(tmp_path / "m.sqlite"),
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/readyz").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        with httpx.Client(base_url=url, timeout=30) as c:
            accepted = c.post("/v1/conversations", json={"question": "What is the premium?"})
            with c.stream("GET", accepted.json()["events"]) as stream:
                proc.send_signal(signal.SIGTERM)  # the open stream still gets to its end
                body = "".join(stream.iter_text())
        assert "event: answer" in body and "event: done" in body
        # uvicorn re-raises the signal once shut down, so managers see how it ended
        assert proc.wait(30) in (0, -signal.SIGTERM)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read()
    assert "binding to 127.0.0.1 instead of 0.0.0.0" in err
    lines = [json.loads(line) for line in err.splitlines() if line.startswith('{"ts"')]
    routes = {(line["route"], line["status"]) for line in lines}
    assert ("/v1/conversations", 202) in routes and ("/readyz", 200) in routes, routes
    assert all(line["request_id"] for line in lines)
