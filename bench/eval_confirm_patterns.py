"""Span precision and recall of the answer_type_patterns rows on test suites nobody here wrote.

Microsoft Recognizers-Text specs (English, Spanish): each case is an input and the expected
spans of one kind of entity. Our `find_values` runs on every input for the mapped answer
type; a predicted span is right when it equals a gold span (exact) or shares a character
with one (overlap). Cases that upstream marks `NotSupported` / `NotSupportedByDesign` on any
platform are scored apart. Files of other entity kinds are run too, as negatives: every value
found there counts against precision (dimension and age for amounts, ip and guid for phone
and number numbers). IBANs: every example must be found whole, and corruptions of each must
be rejected: a changed digit and two swapped characters (mod-97 catches them), and a dropped
or doubled character with the check digits recomputed (only the country's length catches it).

    .venv/bin/python bench/eval_confirm_patterns.py [--data /work/shared/data] [--failures TYPE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import regex

from quaestio.confirm import find_values
from quaestio.satellites import bundled_satellites

SPECS = {  # answer_type: [(file under Specs, gold type names)]
    "amount": [("NumberWithUnit/{L}/CurrencyModel.json", {"currency"})],
    "percentage": [("Number/{L}/PercentModel.json", {"percentage"})],
    "date": [("DateTime/{L}/DateExtractor.json", {"date"})],
    "duration": [("DateTime/{L}/DurationExtractor.json", {"duration"})],
    "number": [("Number/{L}/NumberModel.json", {"number"})],
    "email": [("Sequence/{L}/EmailModel.json", {"email"})],
    "phone": [("Sequence/{L}/PhoneNumberModel.json", {"phonenumber"})],
    "url": [("Sequence/{L}/URLModel.json", {"url"})],
}
NEGATIVES = {
    "amount": ["NumberWithUnit/{L}/DimensionModel.json", "NumberWithUnit/{L}/AgeModel.json"],
    "phone": ["Sequence/{L}/IpAddressModel.json", "Sequence/{L}/GUIDModel.json"],
    "number": ["Sequence/{L}/GUIDModel.json"],
}
LANGUAGES = {"English": "en", "Spanish": "es"}
TARGETS = {
    "amount": 0.95,
    "percentage": 0.95,
    "email": 0.95,
    "url": 0.95,
    "date": 0.90,
    "phone": 0.90,
}


def load(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8-sig"))


def gold_spans(case: dict, kinds: set[str]) -> list[tuple[int, int]]:
    spans, text, after = [], case["Input"], 0
    for r in case.get("Results", []):
        if (r.get("TypeName") or r.get("Type")) not in kinds:
            continue
        if "Start" not in r:  # some files give only the text: take its next occurrence
            start = text.lower().find(r["Text"].lower(), after)
            if start < 0:
                continue
            end = start + len(r["Text"])
            after = end
        else:
            start = r["Start"]
            end = start + r["Length"] if "Length" in r else r["End"] + 1
        spans.append((start, end))
    return spans


def unsupported(case: dict) -> bool:
    return bool(case.get("NotSupported") or case.get("NotSupportedByDesign"))


class Score:
    def __init__(self):
        self.cases = self.gold = self.pred = 0
        self.p_exact = self.p_overlap = self.r_exact = self.r_overlap = 0

    def add(self, pred: list[tuple[int, int]], gold: list[tuple[int, int]]) -> bool:
        self.cases += 1
        self.gold += len(gold)
        self.pred += len(pred)
        hit = lambda a, b: a[0] < b[1] and b[0] < a[1]  # noqa: E731
        self.p_exact += sum(p in gold for p in pred)
        self.p_overlap += sum(any(hit(p, g) for g in gold) for p in pred)
        self.r_exact += sum(g in pred for g in gold)
        self.r_overlap += sum(any(hit(p, g) for p in pred) for g in gold)
        return sorted(pred) == sorted(gold)

    def row(self) -> list[str]:
        pct = lambda n, d: f"{100 * n / d:5.1f}" if d else "    -"  # noqa: E731
        return [
            str(self.cases),
            str(self.gold),
            str(self.pred),
            pct(self.p_exact, self.pred),
            pct(self.r_exact, self.gold),
            pct(self.p_overlap, self.pred),
            pct(self.r_overlap, self.gold),
        ]


def evaluate(specs: Path, show: str | None) -> dict:
    sats = bundled_satellites()
    scores: dict[tuple, Score] = defaultdict(Score)
    for answer_type, files in SPECS.items():
        for folder, lang in LANGUAGES.items():
            for pattern, kinds in files:
                path = specs / pattern.format(L=folder)
                if not path.exists():
                    continue
                for case in load(path):
                    text = case["Input"]
                    pred = [
                        (v.start, v.end)
                        for v in find_values(text, answer_type, language=lang, satellites=sats)
                    ]
                    gold = gold_spans(case, kinds)
                    bucket = "unsupported" if unsupported(case) else "supported"
                    for key in ((answer_type, lang, bucket), (answer_type, "all", bucket)):
                        ok = scores[key].add(pred, gold)
                    if show == answer_type and not ok and bucket == "supported":
                        print(
                            f"  {lang} gold={[text[a:b] for a, b in gold]} "
                            f"pred={[text[a:b] for a, b in pred]} | {text[:110]!r}"
                        )
            for neg in NEGATIVES.get(answer_type, []):
                path = specs / neg.format(L=folder)
                if not path.exists():
                    continue
                for case in load(path):
                    pred = [
                        (v.start, v.end)
                        for v in find_values(
                            case["Input"], answer_type, language=lang, satellites=sats
                        )
                    ]
                    for key in (
                        (answer_type, lang, "supported"),
                        (answer_type, "all", "supported"),
                    ):
                        scores[key].pred += len(pred)
                    if show == answer_type and pred:
                        print(f"  NEGATIVE {lang} pred={[case['Input'][a:b] for a, b in pred]}")
    return scores


ONE_CHARACTER = ("changed digit", "swapped pair")


def iban_figures(folder: Path) -> tuple[int, int, int, int]:
    """(found whole, examples, one-character corruptions rejected, tried): mod-97's share."""
    found, total, kinds = iban_detail(folder)
    return (
        found,
        total,
        sum(kinds[k][0] for k in ONE_CHARACTER if k in kinds),
        sum(kinds[k][1] for k in ONE_CHARACTER if k in kinds),
    )


def iban_detail(folder: Path) -> tuple[int, int, dict[str, list[int]]]:
    """(found whole, examples, {corruption kind: [rejected, tried]})."""
    sats = bundled_satellites()
    found = total = 0
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for path in sorted(folder.glob("*-ibans")):
        for line in path.read_text(encoding="utf-8").splitlines():
            iban = line.strip()
            if not iban:
                continue
            compact = "".join(
                ch for ch in regex.sub(r"^IBAN\W*", "", iban, flags=regex.I) if ch.isalnum()
            ).upper()
            total += 1
            text = f"Please transfer the premium to IBAN {iban} before Friday."
            values = find_values(text, "iban", satellites=sats)
            found += any(v.value == compact for v in values)
            for kind, bad in corruptions(iban):
                kinds[kind][1] += 1
                text = f"Please transfer the premium to IBAN {bad} before Friday."
                kinds[kind][0] += not find_values(text, "iban", satellites=sats)
    return found, total, dict(kinds)


def corruptions(iban: str) -> list[tuple[str, str]]:
    """(kind, corrupted copy): a changed digit and two swapped neighbours, both past the
    country code; a dropped and a doubled character of the compact form, with check digits
    recomputed so that mod-97 still holds (a national number of the wrong length)."""
    chars = list(iban)
    out = []
    digits = [i for i, c in enumerate(chars) if c.isdigit() and i > 4]
    if digits:
        i = digits[len(digits) // 2]
        changed = chars.copy()
        changed[i] = str((int(chars[i]) + 1) % 10)
        out.append(("changed digit", "".join(changed)))
    pairs = [
        i
        for i in range(5, len(chars) - 1)
        if chars[i].isalnum() and chars[i + 1].isalnum() and chars[i] != chars[i + 1]
    ]
    if pairs:
        i = pairs[len(pairs) // 2]
        swapped = chars.copy()
        swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
        out.append(("swapped pair", "".join(swapped)))
    compact = "".join(
        ch for ch in regex.sub(r"^IBAN\W*", "", iban, flags=regex.I) if ch.isalnum()
    ).upper()
    middle = 4 + (len(compact) - 4) // 2
    for kind, bban in (
        ("dropped char, checksum fixed", compact[4:middle] + compact[middle + 1 :]),
        ("doubled char, checksum fixed", compact[4 : middle + 1] + compact[middle:]),
    ):
        out.append((kind, with_check_digits(compact[:2], bban)))
    return out


def with_check_digits(country: str, bban: str) -> str:
    """The IBAN of `bban` in `country` whose ISO 13616 check digits are right."""
    digits = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/work/shared/data", type=Path)
    parser.add_argument("--failures", metavar="TYPE", help="print the misses of one type")
    parser.add_argument("--iban-only", action="store_true", help="only the IBAN figures")
    args = parser.parse_args(argv)
    specs = args.data / "recognizers_text" / "Specs"
    if not specs.is_dir():
        print(f"skipped: {specs} is absent (pass --data)")
        return 0
    scores = {} if args.iban_only else evaluate(specs, args.failures)
    head = [
        "type",
        "lang",
        "cases",
        "gold",
        "pred",
        "P exact",
        "R exact",
        "P overlap",
        "R overlap",
        "target R",
    ]
    for bucket in ("supported", "unsupported") if scores else ():
        print(
            f"\n{bucket} cases"
            + (
                " (upstream NotSupported / NotSupportedByDesign)"
                if bucket == "unsupported"
                else ""
            )
        )
        print(" | ".join(f"{h:>9}" for h in head))
        for (answer_type, lang, b), score in sorted(scores.items()):
            if b != bucket:
                continue
            target = (
                f"{TARGETS[answer_type]:.0%}"
                if answer_type in TARGETS and bucket == "supported" and lang == "all"
                else ""
            )
            print(" | ".join(f"{c:>9}" for c in [answer_type, lang, *score.row(), target]))
    ibans = args.data / "iban_examples" / "example-ibans"
    if ibans.is_dir():
        found, total, kinds = iban_detail(ibans)
        rejected = sum(kinds[k][0] for k in ONE_CHARACTER)
        corrupted = sum(kinds[k][1] for k in ONE_CHARACTER)
        print(
            f"\nIBAN: {found}/{total} examples found whole ({100 * found / total:.1f}%); "
            f"{rejected}/{corrupted} one-character corruptions rejected "
            f"({100 * rejected / corrupted:.1f}%)"
        )
        for kind, (r, n) in kinds.items():
            print(f"  {kind}: {r}/{n} rejected ({100 * r / n:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
