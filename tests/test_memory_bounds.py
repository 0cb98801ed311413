"""A stream of unique questions parses in flat memory: every memo of the parse path (word
folding, lemmas, gate answers, rule matches...) stops growing at its bound (`analysis.memo`).

The bounds are lowered through their settings in a fresh process, so that a few hundred
questions fill every memo; past that point, more unique questions must not add memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROGRAM = r"""
import gc, json, sys, tracemalloc
import quaestio

def questions(round_, n=150):
    # every word of a round is new: codes, names, ids, as a real stream brings them
    return [
        f"What is the premium of plan Zq{round_}x{i} for Mr Vorlak{round_}n{i} "
        f"under policy {round_}{i:05d}?"
        for i in range(n)
    ]

for batch in quaestio.iter_parse(questions(0)):  # one-time tables are built here
    pass
del batch
gc.collect()
tracemalloc.start()
traced = []
for round_ in range(1, 5):
    for batch in quaestio.iter_parse(questions(round_)):
        pass
    del batch
    gc.collect()
    traced.append(tracemalloc.get_traced_memory()[0])
print(json.dumps(traced))
"""


def test_memory_stays_flat_over_many_unique_questions():
    env = {**os.environ, "QUAESTIO_MEMO_WORDS": "64", "QUAESTIO_MEMO_TEXTS": "16"}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    traced = json.loads(done.stdout.splitlines()[-1])
    # Rounds 2 to 4 come after every memo is full: what they add is noise (free lists, a
    # few interned strings), while one memo left unbounded adds ~1 kB or more per question
    # (the old word memos: ~2.5 MB per round of 150 questions).
    growth = max(traced[1:]) - traced[0]
    assert growth < 400_000, f"traced memory grew by {growth:,} bytes: {traced}"


RELEASE = r"""
import json, sys
import pyarrow as pa
import pyarrow.parquet as pq
import quaestio

def rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096

list(quaestio.iter_parse(["What is the premium?"]))  # one-time tables
texts = [f"What is the premium of policy {i:07d} in the annual plan?" for i in range(400_000)]
pq.write_table(pa.table({"question": texts}), sys.argv[1])
del texts
questions = pq.read_table(sys.argv[1])["question"].to_pylist()  # the table is freed
before = rss()
list(quaestio.iter_parse(questions[:10]))
print(json.dumps([before, rss(), pa.default_memory_pool().backend_name]))
"""


def test_a_parse_hands_back_the_memory_arrows_pool_kept(tmp_path):
    # mimalloc keeps what a caller's Parquet read freed (~165 MB for a million questions);
    # a batch that holds on to it would carry it to the peak of a whole run.
    done = subprocess.run(
        [sys.executable, "-c", RELEASE, str(tmp_path / "q.parquet")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    before, after, backend = json.loads(done.stdout.splitlines()[-1])
    if backend != "mimalloc":
        pytest.skip(f"Arrow's pool here is {backend}")
    assert before - after > 20 * 2**20, f"RSS {before:,} -> {after:,} bytes"


LANGUAGES = r"""
import json
import quaestio
from quaestio.analysis import morphology

loaded = []
table = morphology._table
morphology._table = lambda shipped, version, lang: loaded.append(lang) or table(
    shipped, version, lang
)
qdf = quaestio.parse_questions(
    ["What are the exclusions and limitations?", "What are the terms and conditions?"],
    as_="arrow",
)
print(json.dumps([loaded, qdf["toc_section_hint"].to_pylist()]))
"""


def test_an_english_batch_loads_no_other_lemma_table():
    # section_pairs rows exist in French and Spanish too; their lemmas (~120 MB of tables)
    # are for questions in those languages only.
    done = subprocess.run(
        [sys.executable, "-c", LANGUAGES], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    loaded, hints = json.loads(done.stdout.splitlines()[-1])
    assert loaded == ["en"]
    assert None not in hints  # the English rows still unify (and name their section)
