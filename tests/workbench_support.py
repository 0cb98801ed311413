"""Shared by the workbench tests: a writable satellite folder with candidates, and a server."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import polars as pl

FIXTURES = Path(__file__).parent / "fixtures"
# Headless Chromium for the browser tests, the review bench and the docs' screenshots.
# Without the background-networking flags Chromium keeps dialling out, which this sandbox
# refuses; --no-sandbox because CI runs as root.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUESTIONS = [
    "What is the annual premium?",
    "What is the insurance premium in Germany?",
    "What is the limit of indemnity?",
    "¿Cuál es la prima anual?",
    "Hello there",
]


def candidate(
    i: int,
    keyword: str,
    concept: str = "premium",
    *,
    language: str = "en",
    kind: str = "variant",
    score: float = 0.8,
    proposed: str = "",
) -> dict:
    return {
        "decision": "",
        "kind": kind,
        "concept": concept,
        "language": language,
        "keyword": keyword,
        "keyword_priority": "secondary",
        "weight": f"{score:.2f}",
        "match": "fuzzy",
        "proposed_concept": proposed,
        "cluster_id": str(i % 3),
        "similarity": f"{score:.3f}",
        "nearest_keyword": "premium" if concept else "",
        "count": "4",
        "docs": "2",
        "cluster_concepts": concept,
        "examples": f"The {keyword} is due in March. | We paid the {keyword} twice.",
    }


def make_folder(tmp_path: Path, candidates: list[dict] | None = None) -> Path:
    """Every table as CSV (the tiny fixture tables plus the bundled others) and candidates."""
    from quaestio import load_satellites

    folder = tmp_path / "sats"
    load_satellites(FIXTURES / "satellites").write(folder)
    if candidates is None:
        candidates = [
            candidate(0, "insurance premium"),
            candidate(
                1,
                "deductible amount",
                "",
                kind="new_concept",
                score=0.9,
                proposed="deductible_amount",
            ),
            candidate(2, "prime annuelle", language="fr", score=0.7),
            candidate(3, "yearly premium", score=0.65),
        ]
    (folder / "curation").mkdir()
    pl.DataFrame(candidates).write_csv(folder / "curation" / "candidates.csv")
    return folder


def header_user(request, role: str) -> str:
    """A stand-in for the service's keys: X-User names the analyst, X-Role their role."""
    from fastapi import HTTPException

    user = request.headers.get("x-user")
    if not user:
        raise HTTPException(401, "no key")
    if role == "analyst" and request.headers.get("x-role", "analyst") != "analyst":
        raise HTTPException(403, "the analyst role is needed")
    return user


class Server:
    """A real uvicorn server for an app, on a free loopback port, in a thread."""

    def __init__(self, app):
        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the workbench server did not start in 20 s")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
