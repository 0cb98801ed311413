"""Keys, roles, rate limit and the admin reload, over real HTTP; the key never leaks."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")

from fastapi import HTTPException  # noqa: E402
from serve_helpers import LiveServer  # noqa: E402
from starlette.requests import Request  # noqa: E402

from quaestio.serve import ServeConfig  # noqa: E402
from quaestio.serve.auth import KeyFileError, KeyRing, hash_key, new_key_line  # noqa: E402
from quaestio.serve.service import Service, ServiceNotStarted  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "src" / "quaestio" / "satellites" / "data"


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    made = {role: new_key_line(role, f"{role}-client") for role in ("reader", "analyst", "admin")}
    path = folder / "keys.txt"
    path.write_text("# role keys\n" + "\n".join(line for _, line in made.values()) + "\n")
    return path, {role: key for role, (key, _) in made.items()}


@pytest.fixture(scope="module")
def sat_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sats")
    shutil.copy(DATA / "prompt_parts.csv", folder)
    return folder


@pytest.fixture(scope="module")
def server(keys, sat_dir):
    with LiveServer(
        ServeConfig(api_keys=keys[0], satellites=sat_dir, rate_per_minute=60, burst=5)
    ) as live:
        yield live


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_a_key_file_holds_digests_only_and_bad_lines_are_named(keys, tmp_path):
    path, plain = keys
    text = path.read_text()
    assert all(key not in text for key in plain.values())
    assert hash_key(plain["admin"]) in text
    ring = KeyRing.load(path, env="")
    assert ring.identify(plain["analyst"]).role == "analyst"
    assert ring.identify("qk_wrong") is None and ring.identify(None) is None
    bad = tmp_path / "bad.txt"
    bad.write_text(hash_key("x") + " reader one\nsha256:abc reader two\n")
    with pytest.raises(KeyFileError, match="line 2"):
        KeyRing.load(bad, env="")
    env = KeyRing.load(None, env=f"{hash_key('k1')} reader a; {hash_key('k2')} admin b")
    assert env.identify("k2").name == "b" and len(env) == 2


def test_without_a_valid_key_401_and_with_too_small_a_role_403(server, keys):
    _, plain = keys
    with httpx.Client(base_url=server.url) as c:
        assert c.post("/v1/parse", json={"question": "q?"}).status_code == 401
        wrong = c.post("/v1/parse", json={"question": "q?"}, headers=auth("qk_nope"))
        assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
        assert wrong.headers["content-type"] == "application/problem+json"
        ok = c.post(
            "/v1/parse",
            json={"question": "What is the premium?"},
            headers={"X-API-Key": plain["reader"]},
        )
        assert ok.status_code == 200
        denied = c.post("/v1/admin/satellites:reload", headers=auth(plain["analyst"]))
        assert denied.status_code == 403 and "admin" in denied.json()["detail"]
        assert c.get("/healthz").status_code == 200  # liveness needs no key


def test_without_keys_only_loopback_clients_are_served():
    service = Service(ServeConfig())
    service.keys = KeyRing([])

    def request(host: str) -> Request:
        return Request(
            {
                "type": "http",
                "method": "GET",
                "path": "/",
                "headers": [],
                "client": (host, 5000),
                "query_string": b"",
            }
        )

    assert service.principal(request("127.0.0.1"), "admin").name == "local"
    assert service.principal(request("::1"), "admin").role == "admin"
    with pytest.raises(HTTPException) as info:
        service.principal(request("10.1.2.3"), "reader")
    assert info.value.status_code == 401


def test_what_start_opens_is_not_read_before_it():
    service = Service(ServeConfig())
    for name in ("satellites", "store", "cpu", "index", "llm", "llm_config", "answer_client"):
        with pytest.raises(ServiceNotStarted, match=rf"^Service\.{name} is opened by"):
            getattr(service, name)
    assert service.loaded() == {"satellites": False, "index": True}, service.loaded()


def test_the_rate_limit_answers_429_with_retry_after(server, keys):
    _, plain = keys
    with httpx.Client(base_url=server.url) as c:
        codes = [
            c.post(
                "/v1/parse",
                json={"question": "What is the premium?"},
                headers=auth(plain["analyst"]),
            )
            for _ in range(8)
        ]
    statuses = [r.status_code for r in codes]
    assert statuses[:5] == [200] * 5 and 429 in statuses, statuses
    limited = next(r for r in codes if r.status_code == 429)
    assert int(limited.headers["retry-after"]) >= 1


def test_keys_never_appear_in_logs_or_responses(server, keys, caplog):
    _, plain = keys
    caplog.set_level(logging.INFO, logger="quaestio.serve.access")
    with httpx.Client(base_url=server.url) as c:
        response = c.post(
            "/v1/parse", json={"question": "What is the premium?"}, headers=auth(plain["admin"])
        )
        c.post("/v1/parse", json={"question": "q?"}, headers=auth(plain["admin"] + "x"))
    lines = [
        json.loads(r.getMessage()) for r in caplog.records if r.name == "quaestio.serve.access"
    ]
    assert any(
        line["key"] == "admin-client" and line["route"] == "/v1/parse" and line["status"] == 200
        for line in lines
    ), lines
    everything = caplog.text + response.text + str(dict(response.headers))
    assert all(key not in everything for key in plain.values())


def test_reload_validates_first_and_keeps_serving_on_a_broken_table(server, keys, sat_dir):
    _, plain = keys
    with httpx.Client(base_url=server.url, headers=auth(plain["admin"]), timeout=120) as c:
        before = c.post("/v1/admin/satellites:reload").json()
        assert before["reloaded"] and before["version"]
        (sat_dir / "prompt_parts.extra.csv").write_text(
            "part_id,kind,target,language,text\nbad_format,format,poem,*,Rhyme.\n"
        )
        broken = c.post("/v1/admin/satellites:reload")
        assert broken.status_code == 422, broken.text
        failure = broken.json()["failures"][0]
        assert failure["row"] == 2 and failure["value"] == "poem"
        assert failure["source"].endswith("prompt_parts.extra.csv")
        assert server.service.satellites.version == before["version"]
        assert c.post("/v1/parse", json={"question": "What is the premium?"}).status_code == 200
        (sat_dir / "prompt_parts.extra.csv").write_text(
            "part_id,kind,target,language,text\nterse,tone,,*,Be terse.\n"
        )
        after = c.post("/v1/admin/satellites:reload").json()
        assert after["reloaded"] and after["version"] != before["version"]
        assert "terse" in server.service.satellites.prompt_parts["part_id"].to_list()
