"""The analysts' workbench under /ui of `quaestio serve`, behind the service's own keys."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("jinja2")

from serve_helpers import LiveServer  # noqa: E402

from quaestio.serve import ServeConfig  # noqa: E402
from quaestio.serve.auth import new_key_line  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "src" / "quaestio" / "satellites" / "data"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wb")
    sats = folder / "sats"
    sats.mkdir()
    for name in ("prompt_parts.csv", "concept_keywords.insurance.csv", "concepts.insurance.csv"):
        shutil.copy(DATA / name, sats)
    made = {role: new_key_line(role, f"{role}-client") for role in ("reader", "analyst")}
    keys = folder / "keys.txt"
    keys.write_text("\n".join(line for _, line in made.values()) + "\n")
    with LiveServer(
        ServeConfig(api_keys=keys, satellites=sats, rate_per_minute=600, burst=100)
    ) as live:
        yield live, {role: key for role, (key, _) in made.items()}


def _get(server, path, key=None):
    live, _ = server
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.get(live.url + path, headers=headers, timeout=60)


def test_the_pages_need_a_key_and_a_reader_sees_them(server):
    _, keys = server
    assert _get(server, "/ui/").status_code == 401
    page = _get(server, "/ui/rows/concept_keywords", keys["reader"])
    assert page.status_code == 200 and "premium" in page.text


def test_changes_need_the_analyst_role(server):
    live, keys = server
    body = {"ops": [], "reason": "nothing"}
    as_reader = httpx.post(
        live.url + "/ui/api/save",
        json=body,
        timeout=60,
        headers={"Authorization": f"Bearer {keys['reader']}"},
    )
    assert as_reader.status_code == 403
    as_analyst = httpx.post(
        live.url + "/ui/api/save",
        json=body,
        timeout=60,
        headers={"Authorization": f"Bearer {keys['analyst']}"},
    )
    assert as_analyst.status_code not in (401, 403, 500), as_analyst.text
