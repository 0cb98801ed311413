"""Regenerate the workbench screenshots in this folder (1200×800 PNG, each ≤ 150 KB).

The folder is the bundled satellite tables exported, the candidates come from
`discover_candidates` on examples/curation_corpus (generated ones when the curation extra is
missing), the question set is examples/questions.csv; Debian's Chromium renders the pages.

    python docs/workbench/make_screenshots.py
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from workbench_support import CHROMIUM_FLAGS, Server, candidate  # noqa: E402

MAX_BYTES = 150_000


def _candidates(folder: Path, sats) -> None:
    out = folder / "curation" / "candidates.csv"
    out.parent.mkdir(exist_ok=True)
    try:
        from quaestio.curation import discover_candidates, write_candidates

        found = discover_candidates(
            ROOT / "examples" / "curation_corpus", sats, min_cluster_size=3
        )
        write_candidates(found.candidates, out)
    except ImportError:
        import polars as pl

        pl.DataFrame([candidate(i, f"premium variant {i}") for i in range(12)]).write_csv(out)


def _save(page, name: str, **options) -> None:
    data = page.screenshot(**options)
    if len(data) > MAX_BYTES:  # text pages quantize to few colours without visible loss
        from PIL import Image

        image = Image.open(io.BytesIO(data)).convert("RGB").quantize(colors=64)
        buf = io.BytesIO()
        image.save(buf, format="PNG", optimize=True)
        data = buf.getvalue()
    (HERE / f"{name}.png").write_bytes(data)
    print(f"{name}.png {len(data) / 1000:.0f} KB")
    assert len(data) <= MAX_BYTES, f"{name}.png is {len(data)} bytes"


def main() -> None:
    from playwright.sync_api import expect, sync_playwright

    from quaestio import load_satellites
    from quaestio.workbench import create_workbench_app

    expect.set_options(timeout=120_000)
    with tempfile.TemporaryDirectory(prefix="quaestio-shots-") as tmp:
        folder = Path(tmp) / "my_satellites"
        sats = load_satellites()
        sats.write(folder)
        _candidates(folder, sats)
        app = create_workbench_app(
            folder,
            questions=ROOT / "examples" / "questions.csv",
            corpus=ROOT / "examples" / "curation_corpus",
        )
        with Server(app) as server, sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.set_default_timeout(120_000)
            url = server.url
            page.goto(f"{url}/")
            _save(page, "home")
            page.goto(f"{url}/coverage")
            _save(page, "coverage")
            page.locator("#concept-docs").scroll_into_view_if_needed()
            _save(page, "coverage_corpus")
            page.goto(f"{url}/candidates")
            first = page.locator("article.cand").first
            page.keyboard.press("a")
            expect(first).to_have_attribute("data-state", "admitted")
            page.keyboard.press("e")
            current = page.locator("article.cand.current")
            current.locator('input[name="weight"]').fill("1.4")
            page.keyboard.press("Enter")
            expect(current.locator('.field-error[data-for="weight"]')).not_to_be_empty()
            _save(page, "candidates")
            page.goto(f"{url}/rows/concept_keywords?q=premium")
            _save(page, "rows")
            key = {"concept": "premium", "language": "en", "keyword": "annual premium"}
            page.goto(f"{url}/rows/concept_keywords/edit?key={quote(json.dumps(key))}")
            page.locator('#row-form input[name="weight"]').fill("1.5")
            expect(page.locator('.field-error[data-for="weight"]')).not_to_be_empty()
            page.locator('#row-form input[name="weight"]').fill("0.9")
            page.locator('#row-form input[name="keyword"]').fill("yearly premium")
            expect(page.locator("#check-status")).to_have_text("valid")
            page.locator('#row-form input[name="weight"]').fill("1.5")
            expect(page.locator('.field-error[data-for="weight"]')).not_to_be_empty()
            _save(page, "edit_validation")
            page.locator('#row-form input[name="weight"]').fill("0.9")
            expect(page.locator("#check-status")).to_have_text("valid")
            page.locator("#try-question").fill("What is the yearly premium in Germany?")
            page.locator("#try-btn").click()
            expect(page.locator("#try-result table")).to_be_visible()
            page.locator("#try-result").scroll_into_view_if_needed()
            _save(page, "edit_try")
            page.locator('input[name="qset"][value="set"]').check()
            page.locator("#preview-btn").click()
            expect(page.locator("#preview-result table.reparse")).to_be_visible()
            page.locator("#reparse").scroll_into_view_if_needed()
            _save(page, "edit_diff")
            other = browser.new_page(viewport={"width": 1200, "height": 800})
            other.goto(page.url)
            other.locator('#row-form input[name="weight"]').fill("0.8")
            other.locator("#why").fill("colleague: a secondary variant")
            other.locator("#save-btn").click()
            expect(other.locator("#save-status a")).to_be_visible()
            page.locator("#why").fill("the policies say yearly")
            page.locator("#save-btn").click()
            expect(page.locator("#conflict")).to_be_visible()
            page.locator("#conflict").scroll_into_view_if_needed()
            _save(page, "conflict")
            page.reload()
            page.locator('#row-form input[name="keyword"]').fill("yearly premium")
            page.locator("#why").fill("the policies say yearly")
            page.locator("#save-btn").click()
            expect(page.locator("#save-status a")).to_be_visible()
            page.goto(f"{url}/changes")
            _save(page, "changes")
            browser.close()


if __name__ == "__main__":
    main()
