"""Shared by the serve benches: a `quaestio serve` process on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "What is the annual premium?",
    "¿Cuál es la prima anual?",
    "Quelle est la prime annuelle ?",
    "What is the deductible for fire claims?",
    "List the exclusions of the contract",
    "Who is the insurer?",
    "When does the policy term end?",
    "What is the limit?",
    "What did we sign with Acme between 2022 and 2024?",
    "Show me page 3",
    "What are the exclusions and limitations?",
    "Where do I find the claims screen?",
    "What was the net income in 2024?",
    "What is the combined ratio?",
    "how do I cancel my policy",
    "Does article L131-1 of the insurance code apply here?",
]


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class ServeProcess:
    """`with ServeProcess(index_dir) as server:` → server.url, server.pid."""

    def __init__(self, index_dir: Path, store: Path, *extra: str):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "QUAESTIO_API_KEYS": "",
            "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        }
        self.cmd = [
            sys.executable,
            "-m",
            "quaestio",
            "serve",
            "--index",
            str(index_dir),
            "--port",
            str(self.port),
            "--store",
            str(store),
            "--rate",
            "1e9",
            *extra,
        ]
        self.env = env

    def __enter__(self) -> ServeProcess:
        self.proc = subprocess.Popen(self.cmd, env=self.env, stderr=subprocess.DEVNULL)
        self.pid = self.proc.pid
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.proc.kill()
        raise RuntimeError("quaestio serve did not become ready")

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")
