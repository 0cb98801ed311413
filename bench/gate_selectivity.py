"""How many rules the literal gate lets run per question, and how many of those match.

For every rule set a question meets (each cue family, the anchors, the expanded date rows)
the gate's candidates for the question are counted (the rules it cannot read, which run
behind their own alternation, are left out), and each candidate is searched: a candidate
that does not match is a regex run the gate could have saved. The same questions as
`parse_profile.py` (half InsuranceQA, half TREC). Run it in each tree to compare:

    PYTHONPATH=$PWD/src python bench/gate_selectivity.py --questions 800
    PYTHONPATH=$PWD/src python bench/gate_selectivity.py --check   # also search every rule

`--check` searches the rules the gate dropped too, and fails if one of them matches.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from parse_profile import load_questions  # noqa: E402


def rule_sets(sats):
    from quaestio.analysis.dates import _date_rules
    from quaestio.analysis.rules import anchor_rules, cue_rules

    families = sorted(set(sats.tables["cues"]["family"]))
    return [(f, cue_rules(sats, f)) for f in families] + [
        ("anchors", anchor_rules(sats)),
        ("date (expanded)", _date_rules(sats)[0]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=800)
    parser.add_argument("--check", action="store_true", help="search the dropped rules too")
    parser.add_argument("--top", type=int, default=12, help="rules listed by wasted runs")
    parser.add_argument("--watch", default="type_person_head_en", help="a rule to report on")
    args = parser.parse_args()

    from quaestio.satellites import bundled_satellites

    sats = bundled_satellites()
    questions = load_questions(args.questions)
    sets = rule_sets(sats)
    ran, hit, dropped_hits = Counter(), Counter(), []
    for question in questions:
        folded = question.casefold()
        for _, ruleset in sets:
            kept = ruleset.gate.candidates(folded, free=False)
            ids = {id(r) for r in kept}
            for rule in kept:
                ran[rule.rule_id] += 1
                hit[rule.rule_id] += rule.pattern.search(question) is not None
            if args.check:
                dropped_hits += [
                    (rule.rule_id, question)
                    for rule in ruleset
                    if id(rule) not in ids
                    and ruleset.gate.needs[ruleset.rules.index(rule)]
                    and rule.pattern.search(question)
                ]
    n = len(questions)
    print(f"{n} questions (half InsuranceQA, half TREC)")
    print(f"gate candidates per question: {sum(ran.values()) / n:.2f}")
    print(f"of which match:               {sum(hit.values()) / n:.2f}")
    watch = args.watch
    print(
        f"{watch}: candidate for {ran[watch] / n:.1%} of questions, matches {hit[watch] / n:.1%}"
    )
    print(f"\nrules by wasted runs (candidate, no match), top {args.top}:")
    for rule_id, count in sorted(ran.items(), key=lambda kv: hit[kv[0]] - kv[1])[: args.top]:
        print(f"  {rule_id:<34} ran {count:>5}  matched {hit[rule_id]:>5}")
    if args.check:
        print(f"\nmatching rules the gate dropped: {len(dropped_hits)}")
        for rule_id, question in dropped_hits[:20]:
            print(f"  {rule_id}: {question!r}")
        if dropped_hits:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
