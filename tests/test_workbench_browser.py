"""The workbench in a real headless Chromium (Playwright driving Debian's `chromium`), served by
a real uvicorn server on loopback: keyboard review, inline validation, diff, save, change log,
two analysts on one row, markup shown and not run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("fastapi", reason="the workbench needs the serve extra (fastapi)")
pytest.importorskip("uvicorn", reason="the browser tests serve the app with uvicorn")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install 'quaestio[test]')"
)

from workbench_support import (  # noqa: E402
    CHROMIUM_FLAGS,
    QUESTIONS,
    Server,
    candidate,
    header_user,
    make_folder,
)

from quaestio.workbench import create_workbench_app  # noqa: E402

CHROMIUM = os.environ.get("QUAESTIO_CHROMIUM", "/usr/bin/chromium")
TIMEOUT_MS = 90_000  # the machine running the tests may be shared and slow

sync_api.expect.set_options(timeout=TIMEOUT_MS)
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"no Chromium at {CHROMIUM}: apt-get install -y chromium (or set QUAESTIO_CHROMIUM)",
)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    cands = [
        candidate(0, "insurance premium"),
        candidate(1, "premium amount", score=0.7),
        candidate(2, "<script>window.pwned=1</script>", score=0.6),
        candidate(3, "yearly premium", score=0.65),
    ]
    return make_folder(tmp_path_factory.mktemp("template"), cands)


@pytest.fixture
def folder(template, tmp_path):
    return Path(shutil.copytree(template, tmp_path / "sats"))


def _page(context):
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    return page


def _open_row(page, url, table, key):
    import json
    from urllib.parse import quote

    page.goto(f"{url}/rows/{table}/edit?key={quote(json.dumps(key))}")


def test_review_edit_validate_diff_save_and_log(browser, folder):
    app = create_workbench_app(folder, questions=QUESTIONS)
    with Server(app) as server:
        context = browser.new_context(viewport={"width": 1200, "height": 800})
        page = _page(context)
        page.goto(f"{server.url}/candidates")
        first = page.locator('article.cand[data-cid="0"]')
        sync_api.expect(first).to_have_class("cand state-pending current")
        page.keyboard.press("a")  # admit the first candidate as proposed
        sync_api.expect(first).to_have_attribute("data-state", "admitted")
        second = page.locator('article.cand[data-cid="1"]')
        sync_api.expect(second).to_have_class("cand state-pending current")
        page.keyboard.press("e")  # edit its fields: a bad weight is refused inline
        weight = second.locator('input[name="weight"]')
        weight.fill("2")
        page.keyboard.press("Enter")
        sync_api.expect(second.locator('.field-error[data-for="weight"]')).to_contain_text(
            "must be a number in (0, 1]"
        )
        sync_api.expect(second).to_have_attribute("data-state", "pending")
        weight.fill("0.7")
        page.keyboard.press("Enter")
        sync_api.expect(second).to_have_attribute("data-state", "admitted")
        admitted = pl.read_csv(folder / "concept_keywords.discovery.csv", infer_schema=False)
        assert admitted.select("keyword", "weight").rows() == [
            ("insurance premium", "0.80"),
            ("premium amount", "0.7"),
        ]

        key = {"concept": "premium", "language": "en", "keyword": "annual premium"}
        _open_row(page, server.url, "concept_keywords", key)
        field = page.locator('#row-form input[name="weight"]')
        field.fill("1.5")
        sync_api.expect(page.locator('.field-error[data-for="weight"]')).to_contain_text(
            "must be a number in (0, 1]"
        )
        sync_api.expect(field).to_have_class("invalid")
        field.fill("0.95")
        sync_api.expect(page.locator("#check-status")).to_have_text("valid")
        page.locator('#row-form input[name="keyword"]').fill("yearly premium")
        sync_api.expect(page.locator("#check-status")).to_have_text("valid")
        page.locator("#try-question").fill("What is the yearly premium?")
        page.locator("#try-btn").click()
        sync_api.expect(page.locator("#try-result .added").first).to_contain_text("yearly premium")
        page.locator('input[name="qset"][value="set"]').check()
        page.locator("#preview-btn").click()
        diff = page.locator("#preview-result")
        sync_api.expect(diff).to_contain_text("Re-parse")
        sync_api.expect(diff.locator("table.reparse")).to_contain_text(
            "What is the annual premium?"
        )
        sync_api.expect(diff.locator("table.reparse .removed").first).to_contain_text(
            "annual premium"
        )
        page.locator("#why").fill("the policies say yearly")
        page.locator("#save-btn").click()
        saved = page.locator("#save-status a")
        sync_api.expect(saved).to_contain_text("saved as change #")
        saved.click()
        entry = page.locator("article.change").first
        sync_api.expect(entry).to_contain_text("the policies say yearly")
        sync_api.expect(entry.locator("ins").filter(has_text="0.95")).to_have_count(1)
        sync_api.expect(entry.locator("del").filter(has_text="annual premium")).to_have_count(1)
        rows = pl.read_csv(folder / "concept_keywords.csv", infer_schema=False)
        assert "yearly premium" in rows["keyword"].to_list()
        assert page.js_errors == []
        context.close()


def test_two_analysts_on_one_row(browser, folder):
    app = create_workbench_app(folder, authorize=header_user)
    key = {"concept": "premium", "language": "en", "keyword": "premium"}
    with Server(app) as server:
        ana_ctx = browser.new_context(extra_http_headers={"X-User": "ana"})
        ben_ctx = browser.new_context(extra_http_headers={"X-User": "ben"})
        ana, ben = _page(ana_ctx), _page(ben_ctx)
        _open_row(ana, server.url, "concept_keywords", key)
        _open_row(ben, server.url, "concept_keywords", key)
        ben.locator('#row-form input[name="weight"]').fill("0.9")
        ben.locator("#why").fill("ben: premium is strong")
        ben.locator("#save-btn").click()
        sync_api.expect(ben.locator("#save-status a")).to_contain_text("saved as change #")
        ana.locator('#row-form input[name="weight"]').fill("0.4")
        ana.locator("#save-btn").click()
        conflict = ana.locator("#conflict")
        sync_api.expect(conflict).to_be_visible()
        sync_api.expect(conflict).to_contain_text("Changed by ben")
        sync_api.expect(conflict).to_contain_text("ben: premium is strong")
        sync_api.expect(conflict.locator("tr.changed")).to_contain_text("0.9")
        rows = pl.read_csv(folder / "concept_keywords.csv", infer_schema=False)
        assert rows.filter(keyword="premium", language="en")["weight"].to_list() == ["0.9"]
        ana.locator("#conflict button").click()  # reload theirs, then the edit goes through
        ana.locator('#row-form input[name="weight"]').fill("0.4")
        ana.locator("#save-btn").click()
        sync_api.expect(ana.locator("#save-status a")).to_contain_text("saved as change #")
        ana_ctx.close()
        ben_ctx.close()


def test_markup_is_shown_not_run(browser, folder):
    app = create_workbench_app(folder, questions=QUESTIONS)
    with Server(app) as server:
        context = browser.new_context()
        page = _page(context)
        page.goto(f"{server.url}/candidates")
        card = page.locator('article.cand[data-cid="2"]')
        sync_api.expect(card.locator(".kw")).to_have_text("<script>window.pwned=1</script>")
        page.keyboard.press("j")
        page.keyboard.press("j")
        page.keyboard.press("a")  # admitted as a keyword: the rows page shows it as text
        sync_api.expect(card).to_have_attribute("data-state", "admitted")
        page.goto(f"{server.url}/rows/concept_keywords?q=pwned")
        sync_api.expect(
            page.locator("table.rows tbody td").filter(has_text="<script>")
        ).to_have_count(1)
        page.goto(
            f"{server.url}/rows/concept_keywords/edit?key=%7B%22concept%22%3A%22premium"
            "%22%2C%22language%22%3A%22en%22%2C%22keyword%22%3A%22premium%22%7D"
        )
        page.locator("#try-question").fill('<img src=x onerror="window.pwned=2">premium?')
        page.locator("#try-btn").click()
        sync_api.expect(page.locator("#try-result th").first).to_contain_text("<img src=x")
        page.goto(f"{server.url}/changes")
        sync_api.expect(
            page.locator("article.change ins").filter(has_text="window.pwned")
        ).to_have_count(1)
        assert page.evaluate("typeof window.pwned") == "undefined"
        context.close()
