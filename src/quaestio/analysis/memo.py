"""The bounds of what the parse path remembers between questions.

Pure steps keep their answers for the next question that asks (a word's folded form and
lemma, a gate's answer for a text, a rule's matches), because words and questions repeat.
Each memo holds at most a fixed number of entries and keeps no long text, so a stream of a
million unique questions parses in the memory of its first few tens of thousands: the memos
fill, then stay full (an LRU, or a table emptied when full).

A full word memo holds 5-8 MB (an entry with a short key costs ~150 bytes); the rule
matches cost ~4 MB per thousand texts. With the former 262,144 entries in each of four
memos, the last filled only after some 250k unique questions, and a stream's peak memory
kept rising until then (831 MB at 100k questions, 871 MB at 300k in
`bench/batch_memory.py`). A process short of memory may lower the bounds with
`QUAESTIO_MEMO_WORDS` and `QUAESTIO_MEMO_TEXTS` (read at import); an answer never depends
on them.
"""

from __future__ import annotations

import os


def _setting(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return max(1, int(value)) if value else default


# Entries of a memo keyed by one word or one keyword (fold, lemma): a language's working
# vocabulary fits (InsuranceQA's 15k questions use 4k distinct words), a stream's one-off
# tokens (ids, numbers, typos) fall out.
WORDS = _setting("QUAESTIO_MEMO_WORDS", 32_768)
# Texts (questions, sentences, spans) a memo keyed by text keeps: a batch's repeats and the
# dozen families that ask about the same question meet within it.
TEXTS = _setting("QUAESTIO_MEMO_TEXTS", 4096)
# A rule's matches are kept per (text, rule): a question runs about fifteen rules.
MATCHES = 8 * TEXTS
# Longer strings are not remembered: a passage is asked about once, and a whole question is
# unique more often than not.
WORD_CHARS = 64
TEXT_CHARS = 2000
