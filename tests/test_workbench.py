"""The workbench app over HTTP (Starlette's test client): validation, saves, conflicts,
history, candidates, roles and escaping. The browser tests are in test_workbench_browser.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("fastapi", reason="the workbench needs the serve extra (fastapi)")
pytest.importorskip("httpx", reason="the test client needs httpx")

from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from workbench_support import QUESTIONS, header_user, make_folder  # noqa: E402

from quaestio import load_satellites  # noqa: E402
from quaestio.workbench import create_workbench_app  # noqa: E402
from quaestio.workbench.validation import runaway_reason  # noqa: E402

PREMIUM = {"concept": "premium", "language": "en", "keyword": "premium"}


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return make_folder(tmp_path_factory.mktemp("template"))


@pytest.fixture
def folder(template, tmp_path):
    return Path(shutil.copytree(template, tmp_path / "sats"))


@pytest.fixture
def client(folder):
    return TestClient(create_workbench_app(folder, questions=QUESTIONS))


def _row(client, table, key):
    """The row as the edit page shows it, and its version."""
    page = client.get(f"/rows/{table}/edit", params={"key": json.dumps(key)})
    assert page.status_code == 200, page.text
    version = page.text.split('data-version="')[1].split('"')[0]
    return version


PREMIUM_ROW = {
    **PREMIUM,
    "keyword_priority": "primary",
    "weight": "1.0",
    "match": "fuzzy",
    "status": "validated",
    "source": "expert",
    "added_by": "tests",
    "added_at": "2026-11-30",
}


def _update(key, values, version, table="concept_keywords"):
    base = PREMIUM_ROW if table == "concept_keywords" else key
    return {
        "table": table,
        "action": "update",
        "key": key,
        "values": {**base, **values},
        "version": version,
    }


INVALID = [
    ("concept_keywords", PREMIUM, {"weight": "1.5"}, "weight", "must be a number in (0, 1]"),
    ("concept_keywords", PREMIUM, {"weight": "heavy"}, "weight", "must be a number"),
    ("concept_keywords", PREMIUM, {"concept": "premum"}, "concept", "unknown concept"),
    ("concept_keywords", PREMIUM, {"match": "sometimes"}, "match", "must be one of"),
    (
        "concept_keywords",
        PREMIUM,
        {"keyword": "Annual Premium"},
        "keyword",
        "differs only in case or accents",
    ),
    ("anchors", None, {"pattern": "L(\\d+"}, "pattern", "regex does not compile"),
    ("anchors", None, {"pattern": "(a|aa)+$"}, "pattern", "catastroph"),
    ("anchors", None, {"pattern": "x?"}, "pattern", "matches the empty string"),
]


def test_validation_names_the_field_and_writes_nothing(client, folder):
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    for table, key, values, column, reason in INVALID:
        first = pl.read_csv(folder / f"{table}.csv", infer_schema=False).row(0, named=True)
        key = key or {"anchor_id": first["anchor_id"]}
        version = _row(client, table, key)
        op = _update(key, {**first, **values}, version, table)
        checked = client.post("/api/validate", json={"ops": [op]}).json()
        assert not checked["ok"], (values, checked)
        failure = checked["failures"][0]
        assert (failure["column"], failure["op"]) == (column, 0), (values, checked)
        assert reason in failure["reason"], (values, failure)
        saved = client.post("/api/save", json={"ops": [op], "why": "should fail"})
        assert saved.status_code == 422, saved.text
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert after == before


def test_runaway_regex_check_passes_bounded_patterns():
    assert runaway_reason(r"(a|aa)+$") is not None
    assert runaway_reason(r"(\w+\s?)+$") is not None
    for fine in (r"\bL\d{1,4}-\d{1,3}\b", r"\d[\d\s.,]{0,20}\s*(?:EUR|€)", r"(?i)premium"):
        assert runaway_reason(fine) is None, fine


def test_save_writes_the_csv_logs_and_reverts(client, folder):
    original = (folder / "concept_keywords.csv").read_bytes()
    version = _row(client, "concept_keywords", PREMIUM)
    op = _update(PREMIUM, {"weight": "0.6", "keyword_priority": "primary"}, version)
    saved = client.post("/api/save", json={"ops": [op], "why": "premium is too strong"})
    assert saved.status_code == 200, saved.text
    change = saved.json()["change"]
    rows = pl.read_csv(folder / "concept_keywords.csv", infer_schema=False)
    assert rows.filter(keyword="premium", language="en")["weight"].to_list() == ["0.6"]
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    load_satellites(folder)  # the folder still loads as the loader sees it
    log = [
        json.loads(x) for x in (folder / "curation" / "changelog.jsonl").read_text().splitlines()
    ]
    assert (
        log[-1]["who"],
        log[-1]["why"],
        log[-1]["ops"][0]["before"]["weight"],
        log[-1]["ops"][0]["after"]["weight"],
    ) == (change["who"], "premium is too strong", "1.0", "0.6")
    page = client.get("/changes").text
    assert "premium is too strong" in page and f"#{change['id']}" in page
    reverted = client.post(f"/api/changes/{change['id']}/revert", json={"why": "undo"})
    assert reverted.status_code == 200, reverted.text
    back = pl.read_csv(folder / "concept_keywords.csv", infer_schema=False)
    assert back.equals(pl.read_csv(original, infer_schema=False))
    again = client.post(f"/api/changes/{change['id']}/revert", json={})
    assert again.status_code == 409


def test_a_stale_save_is_refused_with_the_other_change(folder):
    app = create_workbench_app(folder, authorize=header_user)
    ana = TestClient(app, headers={"X-User": "ana"})
    ben = TestClient(app, headers={"X-User": "ben"})
    seen = _row(ana, "concept_keywords", PREMIUM)
    assert _row(ben, "concept_keywords", PREMIUM) == seen
    first = ben.post(
        "/api/save", json={"ops": [_update(PREMIUM, {"weight": "0.9"}, seen)], "why": "ben's edit"}
    )
    assert first.status_code == 200, first.text
    second = ana.post(
        "/api/save", json={"ops": [_update(PREMIUM, {"weight": "0.4"}, seen)], "why": "ana's edit"}
    )
    assert second.status_code == 409, second.text
    conflict = second.json()["conflicts"][0]
    assert conflict["current"]["weight"] == "0.9"
    assert (conflict["change"]["who"], conflict["change"]["why"]) == ("ben", "ben's edit")
    assert conflict["yours"]["weight"] == "0.4"
    rows = pl.read_csv(folder / "concept_keywords.csv", infer_schema=False)
    assert rows.filter(keyword="premium", language="en")["weight"].to_list() == ["0.9"]


def test_a_row_renamed_by_another_analyst_is_a_conflict_too(folder):
    client = TestClient(create_workbench_app(folder))
    seen = _row(client, "concept_keywords", PREMIUM)
    ok = client.post("/api/save", json={"ops": [_update(PREMIUM, {"keyword": "premiums"}, seen)]})
    assert ok.status_code == 200
    stale = client.post("/api/save", json={"ops": [_update(PREMIUM, {"weight": "0.3"}, seen)]})
    assert stale.status_code == 409
    assert stale.json()["conflicts"][0]["current"] is None


def test_candidates_admit_reject_defer(client, folder):
    page = client.get("/candidates")
    assert "insurance premium" in page.text and "The insurance premium is due" in page.text
    admitted = client.post("/api/candidates/0/admit", json={"values": {"weight": "0.75"}})
    assert admitted.status_code == 200, admitted.text
    rows = pl.read_csv(folder / "concept_keywords.discovery.csv", infer_schema=False)
    assert rows.select("keyword", "weight", "status", "source").rows() == [
        ("insurance premium", "0.75", "validated", "discovery")
    ]
    new_concept = client.post("/api/candidates/1/admit", json={"values": {}})
    assert new_concept.status_code == 422
    assert new_concept.json()["failures"][0]["column"] == "concept"
    assert "unknown concept" in new_concept.json()["failures"][0]["reason"]
    rejected = client.post("/api/candidates/1/reject", json={})
    assert rejected.status_code == 200
    phrases = pl.read_csv(folder / "curation" / "rejected_phrases.csv", infer_schema=False)
    assert phrases["keyword"].to_list() == ["deductible amount"]
    assert client.post("/api/candidates/2/defer", json={}).json()["state"] == "deferred"
    assert client.post("/api/candidates/0/reject", json={}).status_code == 409
    states = client.get("/candidates", params={"state": "all"}).text
    assert states.count('data-state="admitted"') == 1
    assert states.count('data-state="rejected"') == 1
    assert states.count('data-state="deferred"') == 1
    sats = load_satellites(folder)
    assert "insurance premium" in sats.concept_keywords["keyword"].to_list()


def test_candidate_filters(client):
    def shown(**params):
        text = client.get("/candidates", params={"state": "all", **params}).text
        return text.count('<article class="cand')

    assert shown() == 4
    assert shown(language="fr") == 1
    assert shown(min_score="0.75") == 2
    assert shown(concept="deductible_amount") == 1
    assert shown(kind="new_concept") == 1


def test_try_and_preview_show_what_changes(client):
    op = {
        "table": "concept_keywords",
        "action": "add",
        "values": {
            "concept": "sub_limit",
            "language": "en",
            "keyword": "yearly cap",
            "weight": "0.9",
        },
    }
    tried = client.post("/api/try", json={"ops": [op], "question": "What is the yearly cap?"})
    assert tried.status_code == 200 and tried.json()["ok"], tried.text
    assert "sub_limit" in tried.json()["html"].split("with your change")[1]
    shown = client.post(
        "/api/preview", json={"ops": [op], "questions": "What is the yearly cap?\nHello"}
    ).json()
    assert "yearly cap" in shown["html"] and "1 of 2 questions change" in shown["html"]


def test_roles(folder):
    app = create_workbench_app(folder, authorize=header_user)
    anonymous = TestClient(app)
    viewer = TestClient(app, headers={"X-User": "vic", "X-Role": "reader"})
    assert anonymous.get("/").status_code == 401
    assert viewer.get("/").status_code == 200
    assert "(read only)" in viewer.get("/rows/concept_keywords").text
    version = _row(viewer, "concept_keywords", PREMIUM)
    op = _update(PREMIUM, {"weight": "0.5"}, version)
    assert viewer.post("/api/validate", json={"ops": [op]}).status_code == 200
    assert viewer.post("/api/save", json={"ops": [op]}).status_code == 403
    assert viewer.post("/api/candidates/0/admit", json={}).status_code == 403
    assert viewer.post("/api/changes/1/revert", json={}).status_code == 403


def test_only_json_bodies_are_accepted(client):
    refused = client.post("/api/save", data={"ops": "x"})
    assert refused.status_code == 415


def test_markup_in_a_keyword_is_escaped(client):
    op = {
        "table": "concept_keywords",
        "action": "add",
        "values": {
            "concept": "premium",
            "language": "en",
            "keyword": "<script>window.pwned=1</script>",
            "weight": "0.5",
        },
    }
    assert client.post("/api/save", json={"ops": [op]}).status_code == 200
    for url in ("/rows/concept_keywords", "/changes"):
        page = client.get(url)
        assert "<script>window.pwned" not in page.text
        assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]


def test_mounted_under_a_prefix(folder):
    parent = FastAPI()
    parent.mount("/ui", create_workbench_app(folder))
    client = TestClient(parent)
    page = client.get("/ui/")
    assert page.status_code == 200
    assert 'href="/ui/static/workbench.css"' in page.text and 'data-base="/ui"' in page.text
    assert client.get("/ui/static/workbench.js").status_code == 200


def test_cli(tmp_path):
    from click.testing import CliRunner

    from quaestio.cli import cli

    out = CliRunner().invoke(cli, ["workbench", "--help"])
    assert out.exit_code == 0 and "--questions" in out.output
    refused = CliRunner().invoke(cli, ["workbench", str(tmp_path), "--host", "0.0.0.0"])
    assert refused.exit_code != 0 and "loopback" in refused.output


def test_without_a_folder_the_pages_say_why():
    page = TestClient(create_workbench_app(None)).get("/candidates")
    assert page.status_code == 200 and "bundled satellite tables" in page.text


def test_coverage_numbers_link_to_their_examples(folder):
    corpus = pl.DataFrame(
        {
            "doc_id": ["d1", "d2", "d3"],
            "language": ["en", "fr", "en"],
            "text": [
                "The annual premium is due in March. The deductible amount is 500 EUR.",
                "Le montant de la prime est payé de mars à juin.",
                "The deductible amount applies to each claim. Is it DE or not?",
            ],
        }
    )
    client = TestClient(create_workbench_app(folder, questions=QUESTIONS, corpus=corpus))
    page = client.get("/coverage").text
    assert 'href="/coverage/concept/premium"' in page
    premium_docs = page.split('href="/coverage/concept/premium">')[1].split("<")[0]
    assert premium_docs == "2", premium_docs
    # `DE` is a cased code: the French "de" is not Germany, the capital DE in d3 is.
    germany = page.split('href="/coverage/concept/country_de">')[1].split("<")[0]
    assert germany == "1", germany
    assert "Hello there" in page.split('id="unmatched"')[1].split("</ul>")[0]
    assert "deductible amount" in page.split('id="unexplained"')[1]
    examples = client.get("/coverage/concept/premium").text
    assert "The annual premium is due in March." in examples
    assert "Le montant de la prime" in examples
    assert "What is the annual premium?" in examples.split('id="questions"')[1]


def test_a_concept_page_of_a_folder_that_does_not_load_says_so(folder):
    path = folder / "concept_keywords.csv"
    rows = pl.read_csv(path, infer_schema=False)
    rows.with_columns(pl.lit("7").alias("weight")).write_csv(path)
    client = TestClient(create_workbench_app(folder, questions=QUESTIONS))
    page = client.get("/coverage/concept/premium")
    assert page.status_code == 200
    assert "The folder does not load" in page.text


def test_bundled_tables_are_browsed_read_only(tmp_path):
    import shutil as sh

    folder = tmp_path / "tiny"
    sh.copytree(Path(__file__).parent / "fixtures" / "satellites", folder)
    client = TestClient(create_workbench_app(folder))
    page = client.get("/rows/cues", params={"q": "between"}).text
    assert "holds no cues file" in page and '<td class="muted">bundled</td>' in page
    refused = client.post(
        "/api/save",
        json={
            "ops": [
                {
                    "table": "cues",
                    "action": "add",
                    "values": {
                        "cue_id": "x_new",
                        "family": "compound",
                        "pattern": "\\\\band\\\\b",
                    },
                }
            ]
        },
    )
    assert refused.status_code == 422
    assert "quaestio satellites export" in refused.json()["failures"][0]["reason"]


def test_assets_ship_in_the_package_and_import_is_lazy():
    import fnmatch
    import subprocess
    import sys
    import tomllib

    root = Path(__file__).resolve().parents[1]
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["quaestio"]
    package = root / "src" / "quaestio"
    assets = [
        p.relative_to(package).as_posix()
        for d in ("templates", "static")
        for p in (package / "workbench" / d).iterdir()
    ]
    assert assets and all(any(fnmatch.fnmatch(a, g) for g in globs) for a in assets), assets
    code = "import sys, quaestio.workbench; print('fastapi' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_folder_that_does_not_load_can_be_fixed_here(folder):
    path = folder / "concept_keywords.csv"
    rows = pl.read_csv(path, infer_schema=False)
    rows.with_columns(
        pl.when(pl.col("keyword") == "premium")
        .then(pl.lit("7"))
        .otherwise(pl.col("weight"))
        .alias("weight")
    ).write_csv(path)
    client = TestClient(create_workbench_app(folder))
    home = client.get("/").text
    assert "does not load" in home and "must be a number in (0, 1]" in home
    version = _row(client, "concept_keywords", PREMIUM)
    still = client.post("/api/save", json={"ops": [_update(PREMIUM, {"weight": "8"}, version)]})
    assert still.status_code == 422
    fixed = client.post("/api/save", json={"ops": [_update(PREMIUM, {"weight": "0.7"}, version)]})
    assert fixed.status_code == 200, fixed.text
    assert "does not load" not in client.get("/").text
    load_satellites(folder)


def test_fuzzed_operations_never_break_the_server_or_the_folder(client, folder):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    cell = st.one_of(
        st.none(),
        st.text(max_size=12),
        st.sampled_from(
            [
                "premium",
                "en",
                "1.0",
                "0",
                "-1",
                "nan",
                "(a|aa)+$",
                "[",
                "fuzzy",
                "<b>x</b>",
                "prime_rate",
                "*",
                "validated",
                "\u202e",
                "1e400",
            ]
        ),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
    )
    columns = st.sampled_from(
        [
            "concept",
            "language",
            "keyword",
            "weight",
            "match",
            "status",
            "pattern",
            "anchor_id",
            "cue_id",
            "family",
            "nope",
        ]
    )
    op = st.fixed_dictionaries(
        {
            "table": st.sampled_from(
                ["concept_keywords", "anchors", "cues", "concepts", "nope", "rejected_phrases"]
            ),
            "action": st.sampled_from(["add", "update", "delete", "drop"]),
            "key": st.one_of(
                st.none(), st.just(PREMIUM), st.dictionaries(columns, cell, max_size=3)
            ),
            "values": st.one_of(st.none(), st.dictionaries(columns, cell, max_size=6)),
            "version": st.one_of(st.none(), st.text(max_size=12)),
            "file": st.one_of(
                st.none(),
                st.sampled_from(["concept_keywords.x.csv", "../evil.csv", "cues.csv", "nope.csv"]),
            ),
        }
    )

    @settings(
        max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(ops=st.lists(op, min_size=1, max_size=3), save=st.booleans())
    def run(ops, save):
        response = client.post("/api/save" if save else "/api/validate", json={"ops": ops})
        assert response.status_code in (200, 400, 409, 422), response.text

    run()
    load_satellites(folder)  # whatever was saved, the folder still loads
    assert not (folder.parent / "evil.csv").exists()


def test_an_update_keeps_the_cells_it_does_not_name(client, folder):
    version = _row(client, "concept_keywords", PREMIUM)
    op = {
        "table": "concept_keywords",
        "action": "update",
        "key": PREMIUM,
        "values": {"weight": "0.5", "match": ""},
        "version": version,
    }
    assert client.post("/api/save", json={"ops": [op]}).status_code == 200
    row = (
        pl.read_csv(folder / "concept_keywords.csv", infer_schema=False)
        .filter(keyword="premium", language="en")
        .row(0, named=True)
    )
    assert (row["weight"], row["match"], row["added_by"]) == ("0.5", None, "tests")
