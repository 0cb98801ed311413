#!/usr/bin/env python3
"""Derive English person head nouns from WordNet 3.0 (build time only).

The English person cues read `<head_nouns:person_wordnet>` at their head-noun position, in
lower case only (`(?-i:...)`): capitalised inside a sentence such a noun may be a name
("Letterman"), and in a title-case question ("What Is Guardian Life Insurance?") a modifier
cannot be told from the head. Measured by `bench/eval_answer_type.py`: TREC tune / held-out
96.1 -> 96.0 / 92.9 -> 93.2 (TREC's strict labels 95.9 -> 95.8 / 92.5 -> 92.8), no
InsuranceQA answer type changed. Cost: the English person-noun cue takes ~95 ms instead of
~30 to compile, paid once by a process whose question wakes it (`bench/cli_startup.py`).

Usage::

    python scripts/head_nouns_from_wordnet.py [--wordnet DIR] [--out FILE]

``DIR`` defaults to ``/usr/share/wordnet`` (Debian's ``wordnet-base`` package: ``apt-get
install wordnet-base``); ``FILE`` to ``src/quaestio/satellites/data/head_nouns.wordnet.csv``.
The package is read here only: the product ships the CSV it writes, never WordNet.

Licence: WordNet 3.0 (Princeton University), which permits use, copying and redistribution
with its notice: "WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved."
(the whole notice is /usr/share/doc/wordnet-base/copyright). The notice is repeated in the
rows' description.

Which nouns: a common noun (lowercase in WordNet, not an instance such as "Einstein", not
a demonym such as "American", which questions use as a modifier) of one or two words,

- whose *most frequent* sense is a person (lexicographer file noun.person), with the
  noun's senses tagged in the corpus behind WordNet's sense order (`tagsense_cnt` > 0:
  otherwise the order says nothing about which sense is usual);
- that is not also an adjective ("native", "official", "major": before a noun they are
  modifiers, "the official language") and has no sense that is an animal, a plant, a food
  or an artefact ("tiger", "witch hazel", "pitcher": the question may ask for the thing).

Their kind is `person_wordnet`, which the English person cues read beside `person` where
they name the head noun (not in the look-aheads that read `person`, which would pay the
compile time of the long list several times over). Nouns that the hand-written
`head_nouns.csv` lists under any kind are left out: the hand rows win. Place nouns were
tried the same way (noun.location) and left out: "back", "top", "source", "scene" are
places to WordNet and rarely what a question asks for. Rows are sorted; the output is the
same for the same WordNet files.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "quaestio" / "satellites" / "data"
LEXFILES = {"person": 18, "location": 15}  # lexicographer file numbers (lexnames)
# Lexicographer files of things a person noun is often also the name of ("tiger", "witch" in
# "witch hazel", "pitcher"): such a noun in a question may name the thing instead.
THINGS = {5: "noun.animal", 6: "noun.artifact", 13: "noun.food", 20: "noun.plant"}
NOTICE = "WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved."
DESCRIPTION = {
    "person": "Derived from WordNet 3.0 by scripts/head_nouns_from_wordnet.py: common nouns "
    "whose most frequent sense is a person. " + NOTICE,
    "location": "Derived from WordNet 3.0 by scripts/head_nouns_from_wordnet.py: common nouns "
    "whose most frequent sense is a place. " + NOTICE,
}


def read_synsets(wordnet: Path) -> dict[str, tuple[int, list[str], bool]]:
    """offset -> (lexicographer file, words as written, is an instance)."""
    out = {}
    with (wordnet / "data.noun").open(encoding="latin-1") as fh:
        for line in fh:
            if line.startswith("  "):  # the licence header
                continue
            fields = line.split()
            n_words = int(fields[3], 16)
            words = [fields[4 + 2 * i] for i in range(n_words)]
            rest = fields[4 + 2 * n_words :]
            pointers = [rest[1 + 4 * i] for i in range(int(rest[0]))]
            out[fields[0]] = (int(fields[1]), words, "@i" in pointers)
    return out


def read_index(wordnet: Path) -> dict[str, tuple[int, list[str]]]:
    """lemma -> (senses tagged in the corpus, synset offsets, most frequent first)."""
    out = {}
    with (wordnet / "index.noun").open(encoding="latin-1") as fh:
        for line in fh:
            if line.startswith("  "):
                continue
            fields = line.split()
            n_pointers = int(fields[3])
            tagged = int(fields[5 + n_pointers])
            out[fields[0]] = (tagged, fields[6 + n_pointers :])
    return out


def read_lemmas(wordnet: Path, pos: str) -> set[str]:
    with (wordnet / f"index.{pos}").open(encoding="latin-1") as fh:
        return {line.split()[0] for line in fh if not line.startswith("  ")}


def derive(
    wordnet: Path, hand: set[str], kinds: tuple[str, ...] = ("person",)
) -> list[tuple[str, str]]:
    """(kind, noun) rows, sorted; `hand`: the nouns head_nouns.csv already has."""
    synsets, index = read_synsets(wordnet), read_index(wordnet)
    adjectives = read_lemmas(wordnet, "adj")
    rows = []
    for lemma, (tagged, offsets) in index.items():
        lexfile, words, instance = synsets[offsets[0]]
        kind = next((k for k, f in LEXFILES.items() if f == lexfile), None)
        if kind not in kinds or instance or tagged == 0 or lemma in adjectives:
            continue
        if any(synsets[o][0] in THINGS for o in offsets):
            continue
        written = next((w for w in words if w.casefold() == lemma), None)
        if written is None or written != written.lower():  # "American", "Realtor": names
            continue
        noun = lemma.replace("_", " ")
        if len(noun.split()) > 2 or not noun.replace(" ", "").replace("-", "").isalpha():
            continue
        if noun in hand or len(noun) < 3:
            continue
        rows.append((kind, noun))
    return sorted(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    parser.add_argument("--out", type=Path, default=DATA / "head_nouns.wordnet.csv")
    args = parser.parse_args()
    with (DATA / "head_nouns.csv").open(encoding="utf-8") as fh:
        hand = {r["noun"].strip().casefold() for r in csv.DictReader(fh) if r["language"] == "en"}
    rows = derive(args.wordnet, hand)
    with args.out.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["language", "kind", "noun", "description"])
        described = set()
        for kind, noun in rows:
            writer.writerow(
                ["en", f"{kind}_wordnet", noun, "" if kind in described else DESCRIPTION[kind]]
            )
            described.add(kind)
    print(f"{args.out}: {len(rows)} rows")


if __name__ == "__main__":
    main()
