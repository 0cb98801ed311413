"""What one process learns about the analysts' patterns is kept for the next, and never
trusted over the patterns themselves."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import regex

from quaestio.analysis.literals import FACT_KIND
from quaestio.satellites.facts import LazyPattern

LOAD = (
    "from quaestio import load_satellites, parse_question; "
    "print(parse_question('What is the annual premium in Germany?').concepts)"
)


def _run(code: str, cache) -> subprocess.CompletedProcess:
    env = {**os.environ, "QUAESTIO_CACHE": str(cache)}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )


def test_a_second_process_reads_the_facts_the_first_one_wrote(tmp_path):
    first = _run(LOAD, tmp_path)
    assert first.returncode == 0, first.stderr
    (kept,) = tmp_path.glob("pattern_facts-*.json")
    facts = json.loads(kept.read_text())
    assert sum(k.startswith("checked:") for k in facts) > 500
    assert sum(k.startswith(f"{FACT_KIND}:") for k in facts) > 100
    second = _run(LOAD, tmp_path)
    assert second.stdout == first.stdout


def test_a_damaged_facts_file_is_ignored_and_rewritten(tmp_path):
    assert _run(LOAD, tmp_path).returncode == 0
    (kept,) = tmp_path.glob("pattern_facts-*.json")
    kept.write_bytes(b"\xff not json")
    again = _run(LOAD, tmp_path)
    assert again.returncode == 0 and "premium" in again.stdout, again.stderr
    assert isinstance(json.loads(kept.read_text()), dict)


def test_a_bad_row_is_reported_even_with_a_warm_cache(tmp_path):
    assert _run(LOAD, tmp_path).returncode == 0
    code = (
        "import pandas as pd; from quaestio import load_satellites, SatelliteError\n"
        "bad = pd.DataFrame({'anchor_id': ['x'], 'pattern': ['(x']})\n"
        "try:\n    load_satellites(extra={'anchors': bad})\n"
        "except SatelliteError as e:\n    print('refused', 'does not compile' in str(e))"
    )
    assert _run(code, tmp_path).stdout.split() == ["refused", "True"]


def test_a_lazy_pattern_compiles_on_first_use_and_pickles_as_its_text():
    lazy = LazyPattern(r"\bpremium\b", regex.IGNORECASE)
    assert lazy._compiled is None
    assert lazy.search("The PREMIUM is due").group() == "PREMIUM"
    assert lazy._compiled is not None
    copy = pickle.loads(pickle.dumps(lazy))
    assert (copy.pattern, copy.flags, copy._compiled) == (lazy.pattern, lazy.flags, None)
