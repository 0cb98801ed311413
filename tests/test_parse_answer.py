"""Answer shape and type from cue rows and concept defaults, in English, French and Spanish."""

import polars as pl
import pytest

from quaestio import SatelliteError, load_satellites, parse_question
from quaestio.analysis.answer import answer_shape_and_type
from quaestio.analysis.gate import LiteralGate
from quaestio.analysis.literals import DIGIT, EDGE, literal_factors
from quaestio.analysis.pipeline import DEFAULT_STEPS
from quaestio.analysis.rules import cue_rules
from quaestio.satellites import bundled_satellites

# The answer step reads what the steps before it found (language, concepts); the later
# steps do not change its columns.
STEPS = DEFAULT_STEPS[: DEFAULT_STEPS.index(answer_shape_and_type) + 1]


def _parse(question, sats=None):
    return parse_question(question, sats, steps=STEPS)


CASES = [
    # the head noun decides: a premium's growth or rate is a percentage, the premium an amount
    ("What premium growth does the board expect for 2025?", "single", "percentage"),
    ("What is the premium rate?", "single", "percentage"),
    ("What is the revenue of the group?", "single", "amount"),
    # a count of time units is a duration (confirmed as "7 days", not as any figure)
    ("Within how many days must a claim be reported?", "single", "duration"),
    ("Combien de jours pour déclarer un sinistre ?", "single", "duration"),
    ("¿Cuántos meses dura el contrato?", "single", "duration"),
    ("How many years old is the building?", "single", "number"),
    # a notice, in a contract, is the period given ("90 days' written notice")
    ("What notice is needed to stop the renewal of the agreement?", "single", "duration"),
    # A requested unit names the type, over a year or a head noun elsewhere in the question
    (
        "What is the year end FY2019 total amount of inventories? Answer in USD millions.",
        "single",
        "amount",
    ),
    (
        "What is the FY2018 - FY2020 3 year average capex as a % of revenue?",
        "single",
        "percentage",
    ),
    (
        "What is the year-over-year change in revenue from FY2016 to FY2017 (in units of "
        "percents)?",
        "single",
        "percentage",
    ),
    ("Quel est le chiffre d'affaires 2023 en millions d'euros ?", "single", "amount"),
    ("¿Cuál fue la variación de las ventas en 2023 en porcentaje?", "single", "percentage"),
    # English
    ("What is the annual premium?", "single", "amount"),
    ("List the annual premiums by year", "listing", "amount"),
    ("List the annual premiums by year and by country", "table", "amount"),
    ("Show the premiums per region and per quarter", "table", "amount"),
    ("Compare the premiums by year", "table", "amount"),
    ("List the exclusions", "listing", "text"),
    ("How much does the policy cost?", "single", "amount"),
    ("How much does the parcel weigh?", "single", "number"),
    ("How many claims were filed in 2023?", "single", "number"),
    ("What year was the policy signed?", "single", "date"),
    ("When does the policy expire?", "single", "date"),
    ("How long is the waiting period?", "single", "duration"),
    ("What percentage of the premium is refunded?", "single", "percentage"),
    ("Who is the policyholder?", "single", "person"),
    ("Who is the insurer?", "single", "organization"),
    ("Which insurer covers the building?", "single", "organization"),
    ("Where is the registered office?", "single", "location"),
    ("Is there a waiting period?", "single", "boolean"),
    ("Does the policy cover flood damage?", "single", "boolean"),
    ("Can I cancel my contract?", "single", "boolean"),
    ("What is the email address of the claims department?", "single", "email"),
    ("What is the website of the insurer?", "single", "url"),
    ("What is the phone number for claims?", "single", "phone"),
    ("What is the IBAN for premium payments?", "single", "iban"),
    ("What is the postal address of the insurer?", "single", "address"),
    ("Why was my claim rejected?", "single", "text"),
    ("What is a deductible?", "single", "text"),
    ("What is the premium per year?", "single", "amount"),
    ("Give me the steps to file a claim", "tree", "text"),
    ("Compare the premiums of the three offers", "table", "amount"),
    ("List the brokers with their name, address and phone number", "nested_json", "organization"),
    ("Hello there", "single", "text"),
    # French
    ("Quel est le montant de la prime annuelle ?", "single", "amount"),
    ("Listez les primes annuelles par année", "listing", "amount"),
    ("Listez les primes annuelles par année et par pays", "table", "amount"),
    ("Comparez les primes par année", "table", "amount"),
    ("Combien coûte le contrat ?", "single", "amount"),
    ("Combien pèse le colis ?", "single", "number"),
    ("Combien de sinistres ont été déclarés en 2023 ?", "single", "number"),
    ("En quelle année le contrat a-t-il été signé ?", "single", "date"),
    ("Quand le contrat expire-t-il ?", "single", "date"),
    ("Depuis combien de temps le contrat est-il en vigueur ?", "single", "duration"),
    ("Quel pourcentage de la prime est remboursé ?", "single", "percentage"),
    ("Qui est le souscripteur ?", "single", "person"),
    ("Qui est l'assureur ?", "single", "organization"),
    ("Où se trouve le siège social ?", "single", "location"),
    ("Existe-t-il un délai de carence ?", "single", "boolean"),
    ("Est-ce que la police couvre les inondations ?", "single", "boolean"),
    ("Le contrat couvre-t-il les dégâts des eaux ?", "single", "boolean"),
    ("Quelle est l'adresse e-mail du service sinistres ?", "single", "email"),
    ("Quel est le site web de l'assureur ?", "single", "url"),
    ("Quel est le numéro de téléphone du service client ?", "single", "phone"),
    ("Quel est l'IBAN pour le paiement des primes ?", "single", "iban"),
    ("Quelle est l'adresse postale de l'assureur ?", "single", "address"),
    ("Pourquoi mon sinistre a-t-il été refusé ?", "single", "text"),
    ("Qu'est-ce qu'une franchise ?", "single", "text"),
    ("Quelles sont les étapes pour déclarer un sinistre ?", "tree", "text"),
    # Spanish
    ("¿Cuál es el importe de la prima anual?", "single", "amount"),
    ("Enumere las primas anuales por año", "listing", "amount"),
    ("Enumerar las primas anuales por año y por país", "table", "amount"),
    ("Compare las primas por año", "table", "amount"),
    ("Enumere las exclusiones", "listing", "text"),
    ("¿Cuánto cuesta el seguro?", "single", "amount"),
    ("¿Cuánto pesa el paquete?", "single", "number"),
    ("¿Cuántos siniestros se declararon en 2023?", "single", "number"),
    ("¿Cuántos años tenía el asegurado?", "single", "duration"),
    ("¿En qué año se firmó la póliza?", "single", "date"),
    ("¿Cuándo vence la póliza?", "single", "date"),
    ("¿Qué porcentaje de la prima se reembolsa?", "single", "percentage"),
    ("¿Quién es el tomador del seguro?", "single", "person"),
    ("¿Quién es la aseguradora?", "single", "organization"),
    ("¿Dónde está la sede social?", "single", "location"),
    ("¿Hay un periodo de carencia?", "single", "boolean"),
    ("¿Cubre la póliza los daños por inundación?", "single", "boolean"),
    ("¿Cuál es el correo electrónico del servicio de siniestros?", "single", "email"),
    ("¿Cuál es el sitio web de la aseguradora?", "single", "url"),
    ("¿Cuál es el número de teléfono de atención al cliente?", "single", "phone"),
    ("¿Cuál es el IBAN para el pago de las primas?", "single", "iban"),
    ("¿Cuál es la dirección postal de la aseguradora?", "single", "address"),
    ("¿Por qué se rechazó mi siniestro?", "single", "text"),
    ("¿Qué es una franquicia?", "single", "text"),
    ("¿Cuáles son los pasos para declarar un siniestro?", "tree", "text"),
]


@pytest.mark.parametrize("question, shape, answer_type", CASES)
def test_shape_and_type(question, shape, answer_type):
    row = _parse(question)
    got = (row.answer_shape, row.answer_type)
    fired = row.provenance.rules_fired
    assert got == (shape, answer_type), (
        f"{question!r}: expected {(shape, answer_type)}, got {got} from {fired}"
    )


@pytest.mark.parametrize(
    "question, answer_type",
    [
        ("How much is the premium?", "amount"),  # the question word and the concept agree
        ("How much premium do I owe?", "amount"),  # "how much" + noun is weaker than the concept
        ("How much caffeine is in a cup?", "number"),  # ... and decides when no concept has a type
        ("When is the premium due?", "date"),  # a specific question word beats the concept
        ("Who pays the premium?", "person"),  # weak money hints do not pile up against "who"
        ("What is the term for a group of geese?", "text"),  # "the term for" asks for a word
    ],
)
def test_concept_default_is_between_weak_and_specific_cues(question, answer_type):
    row = _parse(question)
    assert row.answer_type == answer_type, (
        f"{question!r}: expected {answer_type}, got {row.answer_type} {row.provenance.rules_fired}"
    )


def test_rules_fired_name_the_winner_first_then_the_rest():
    row = _parse("What is the annual premium?")
    assert row.provenance.rules_fired == [
        "cues:type_amount_head_en",
        "concepts:premium.answer_type",
        "cues:type_concept_default",
    ]
    row = _parse("When is the premium due?")
    assert row.provenance.rules_fired[:1] == ["cues:type_when_en"]
    assert "concepts:premium.answer_type" in row.provenance.rules_fired


def test_unclassifiable_question_falls_back_without_firing():
    row = _parse("Hello there")
    assert (row.answer_shape, row.answer_type, row.provenance.rules_fired) == (
        "single",
        "text",
        [],
    )


def test_false_friends_stay_in_their_language():
    # French "nombre de" is "number of"; Spanish "nombre de" is "name of".
    assert _parse("¿Cuál es el nombre de la póliza?").answer_type != "number"
    assert _parse("Quel est le nombre de sinistres ?").answer_type == "number"


def _cues(rows):
    return pl.DataFrame(
        rows, schema=["cue_id", "family", "target", "language", "pattern", "weight"], orient="row"
    )


@pytest.mark.parametrize("order", [1, -1])
def test_contradictory_cues_give_one_deterministic_answer(order):
    rows = [
        ("zz_date", "answer_type", "date", "en", r"\bwidget\b", "0.7"),
        ("zz_amount", "answer_type", "amount", "en", r"\bgadget\b", "0.7"),
    ][::order]
    sats = load_satellites(extra={"cues": _cues(rows)})
    row = _parse("Tell me about the gadget and the widget", sats)
    # Equal weight and equal sum: the evidence found first in the question wins.
    assert row.answer_type == "amount"
    assert row.provenance.rules_fired == ["cues:zz_amount", "cues:zz_date"]


def test_concept_default_weight_is_a_row():
    never = _cues(
        [
            (
                "type_concept_default",
                "answer_type_concept",
                None,
                "*",
                r"\bnever in a question\b",
                "0.5",
            )
        ]
    )
    sats = load_satellites(extra={"cues": never}, override=True)
    bundled = _parse("Tell me about the premium")
    assert (bundled.answer_type, bundled.concepts) == ("amount", ["premium"])
    without = _parse("Tell me about the premium", sats)
    assert (without.answer_type, without.provenance.rules_fired) == ("text", [])


@pytest.mark.parametrize(
    "target, pattern, column, reason",
    [
        ("amount", r"how (much", "pattern", "regex does not compile"),
        ("ammount", r"how much", "target", "unknown answer_type"),
    ],
)
def test_bad_cue_rows_are_rejected_with_their_row(sat_folder, target, pattern, column, reason):
    with (sat_folder / "cues.csv").open("w", encoding="utf-8") as fh:
        fh.write(
            "cue_id,family,target,language,pattern,weight\n"
            "type_ok,answer_type,date,en,\\bwhen\\b,0.9\n"
            f'type_bad,answer_type,{target},en,"{pattern}",0.6\n'
        )
    with pytest.raises(SatelliteError) as caught:
        load_satellites(sat_folder)
    cases = [c for c in caught.value.failure_cases if c["column"] == column]
    assert [(c["row"], c["value"]) for c in cases] == [
        (3, target if column == "target" else pattern)
    ]
    assert reason in cases[0]["reason"]


def test_a_shape_cue_must_target_a_shape(sat_folder):
    (sat_folder / "cues.csv").write_text(
        "cue_id,family,target,language,pattern,weight\n"
        "shape_bad,answer_shape,spreadsheet,en,\\btable\\b,0.9\n"
    )
    with pytest.raises(SatelliteError, match="row 2"):
        load_satellites(sat_folder)


@pytest.mark.parametrize(
    "pattern, factors",
    [
        # "|": no word character beside the literal there (`EDGE`); `\s+` reads as a space
        (r"\bhow\s+much\b", [{"|how much|"}]),
        (r"(?:what|which)\s+(?:year|day)", [{"what year", "what day", "which year", "which day"}]),
        (r"colou?r", [{"color", "colour"}]),
        (r"%", [{"%"}]),
        (r"a|bc", []),  # a lone letter is in every question: no factor
        (r"(?:premium){e<=1}", []),  # fuzzy matching is `regex`-only: always run
        (r"[[:alpha:]]+x", []),
        (r"\bQ\d\b", [{DIGIT}]),  # a digit is looked for, not a literal
        (r"(?:19|20)\d{2}", [{DIGIT}, {"19", "20"}]),
        (r"(?:\d+|twenty)\s+years", [{DIGIT, "twenty"}, {" years"}]),
        # `re` escapes are not `regex`-only ones: a quote row is read like any other
        (r'"(?P<term>[^"\n]{1,200})"', [{'"'}]),
        (r"\x41bc", [{"abc"}]),
        # a letter class of `regex` needs no literal, the words around it do
        (r"\bsee\s+[\p{L}'-]+\s+table\b", [{"|see "}, {" table|"}]),
        (r"(?-i:\p{Lu}\p{Ll}+)\s+clause", [{" clause"}]),
        # a group name repeated across alternatives (`re` rejects it), and a back reference
        (r"\bsee\s+(?:(?P<n>annex)|(?P<n>schedule))", [{"|see annex", "|see schedule"}]),
        (r"(?P<w>in|on)\s+x+\s+(?P=w)\s+notes", [{"in ", "on "}, {" notes"}]),
        (r"\bfoo\s+\mbar", []),  # `regex`-only escapes still opt out
        # the ways a pattern keeps word characters off a literal's sides
        (r"(?<!\w)man(?![\w-])", [{"|man|"}]),
        (r"\s+man(?:e?s)?\b", [{" man|", " mans|", " manes|"}]),
        (r"^\W*(?:so\s+)?does\b", [{"|does|", "|so does|"}]),
        (r"(?<=[\s,])clause\W+one$", [{"|clause|"}, {"|one|"}]),
        (
            r"[,;:]\s*which\b(?=[,.])",
            [{", which|", ",which|", ": which|", ":which|", "; which|", ";which|"}],
        ),
        (r"\bis\s*\n\t\s+it", [{"|is it"}]),  # white space inside a literal: one space
        # no side bounded: a `\b` beside a non-word character, a class that may hold word
        # characters, a `\b` under ASCII word characters
        (r"\b%\s+of\b", [{"% of|"}]),
        (r"man\P{L}", [{"man"}]),
        (r"(?a)\bcafe\b", [{"cafe"}]),
        # "İ" casefolds to "i" and a combining dot, which the text loses too
        (r"\bİn\b", [{"|in|"}]),
    ],
)
def test_literal_factors(pattern, factors):
    found = [{s.replace(EDGE, "|") for s in f} for f in literal_factors(pattern)]
    assert found == factors


QUESTIONS = [q for q, _, _ in CASES] + [
    "WHAT'S THE DEDUCTIBLE?",
    "whats the anual premuim",
    "Name the city where he was born.",
    "In what year did the war end?",
    "Combien d'argent faut-il ?",
    "¿cuanto cuesta?",
    "What does 7847+5943 equal?",
    "Is it 50%?",
    "Who is Colin Powell?",
]


MORE = [
    "Show the table on page 12 of the 2023 report",
    "See the table in the annex, pages 3-5 and slide 2",
    'What does the section "Limits of Liability" say, under the heading Exclusions Générales?',
    "What is in the chart on this slide and in the image of the deck?",
    "Contracts with Acme Corp signed since 2021 and before March 2023",
    "What changed in the 2023 edition, version 2.1 of the policy?",
    "How many more goals were scored in 2010 than in 2011?",
    "¿Qué es la prima y cuál es el deducible, tanto en España como en Francia?",
    "Who is the insured and what is their address?",
    "What does it cover?",
    "Tell me about that",
    'What does "force majeure" mean?',
    "Contracts signed between March 2021 and Q3 2022 with Acme Corp",
    "See section 4.2",
    "¿Qué dice la cláusula 7 del contrato firmado el 3 de mayo de 2024?",
    "ISO-9001 and L131-1",
    "List: premium, deductible, excess.",
    "Quel est le montant au 31/12/2023 ?",
    "What about it?",
    "Sheet 'Q1 sales' in the workbook, slide 3 of the deck",
]


def test_rule_sets_never_drop_a_matching_rule(bundled):
    """Gate and alternation together, on every family, anchors and expanded date rows."""
    from quaestio.analysis.dates import _date_rules
    from quaestio.analysis.rules import anchor_rules
    from quaestio.analysis.rules import cue_rules as rules_of

    families = sorted(set(bundled.tables["cues"]["family"]))
    sets = [rules_of(bundled, f) for f in families] + [
        anchor_rules(bundled),
        _date_rules(bundled)[0],
    ]
    for ruleset in sets:
        for question in QUESTIONS + MORE:
            kept = {r.rule_id for r in ruleset.candidates(question, 1.0)}
            missed = [
                r.rule_id for r in ruleset if r.pattern.search(question) and r.rule_id not in kept
            ]
            assert missed == [], f"{question!r}: the prefilter dropped {missed}"


def test_the_gate_reads_every_cue_row_that_has_a_literal(bundled):
    """A row the gate cannot read runs on every question: a bundled row may stay unread
    only because no literal is required of its matches (`\\w`, a lone letter), never
    because its syntax (a `regex` escape, a repeated group name) defeated the reading."""
    import re
    import re._parser as sre_parse

    from quaestio.analysis.literals import _REGEX_ONLY, _for_re

    unread = [
        r
        for f in sorted(set(bundled.tables["cues"]["family"]))
        for r, need in zip(cue_rules(bundled, f).rules, cue_rules(bundled, f).gate.needs)
        if not need
    ]
    for rule in unread:
        readable = _for_re(rule.pattern.pattern)
        assert not _REGEX_ONLY.search(readable), rule.rule_id
        sre_parse.parse(readable, re.IGNORECASE)  # raises when `re` cannot read it
    assert len(unread) < 20


def test_a_gate_built_later_sees_a_text_an_earlier_gate_remembered():
    """The literal pass is shared and remembered per text: a gate added afterwards (a new
    family, a language's rows) must still find its own literals in that text."""
    import regex

    class Row:
        def __init__(self, pattern):
            self.pattern = regex.compile(pattern)

    first, second = Row(r"\balpha\b"), Row(r"\bomega\s+\d+")
    text = "alpha and omega 12"
    assert LiteralGate([first]).candidates(text) == [first]
    assert LiteralGate([second]).candidates(text) == [second]
    assert LiteralGate([second]).candidates("omega without a number") == []


@pytest.mark.parametrize("family", sorted(set(bundled_satellites().tables["cues"]["family"])))
def test_literal_gate_never_drops_a_matching_rule(bundled, family):
    rules = list(cue_rules(bundled, family))
    gate = LiteralGate(rules)
    for question in QUESTIONS + MORE:
        kept = {r.rule_id for r in gate.candidates(question.casefold())}
        missed = [r.rule_id for r in rules if r.pattern.search(question) and r.rule_id not in kept]
        assert missed == [], f"{question!r}: the prefilter dropped {missed}"


def test_a_repeated_question_gets_the_same_row(bundled):
    """Gate answers and rule matches are remembered per text: a question asked again (or a
    text two steps read, as hints and scope read the page and section rows) must give the
    row it gave the first time, in the same process."""
    from quaestio.analysis import gate, rules

    questions = QUESTIONS + MORE
    for q in questions:  # compile the rows first: a first compile counts on the regex budget
        parse_question(q, bundled)
    rules._MATCHES.clear()
    rules._BOUNDED.clear()
    gate._LITERALS._state = None
    for family in sorted(set(bundled.tables["cues"]["family"])):
        rules.cue_rules(bundled, family).gate._memo.clear()
        rules.cue_rules(bundled, family)._free_memo.clear()
    first = [parse_question(q, bundled).model_dump() for q in questions]
    again = [parse_question(q, bundled).model_dump() for q in questions]
    assert rules._MATCHES and rules._BOUNDED  # the second pass had something to remember
    for one, two in zip(first, again):
        for row in (one, two):  # wall-clock figures: a loaded machine may spend the budget
            row["provenance"].pop("latency_ms")
            row["provenance"]["warnings"] = [
                w for w in row["provenance"]["warnings"] if not w.startswith(("W101", "W104"))
            ]
        assert one == two


def test_loading_the_same_tables_again_takes_no_new_gate_bits():
    # The service's reload and the workbench's re-parse load the same rows again and again:
    # the shared literal automaton must stay the size of the distinct gates.
    from quaestio.analysis import gate

    question = "What is the annual premium on page 3, and who is the insurer?"
    parse_question(question, load_satellites(extra=_one_cue("reload_probe")))
    before = gate._LITERALS._next
    for _ in range(3):
        row = parse_question(question, load_satellites(extra=_one_cue("reload_probe")))
    assert gate._LITERALS._next == before
    assert row.answer_type == "amount"
    # A changed row is a new gate and takes bits of its own.
    parse_question(question, load_satellites(extra=_one_cue("another_probe")))
    assert gate._LITERALS._next > before


def test_a_new_table_builds_the_shared_automaton_once(monkeypatch):
    # Every family of a new table registers its gate in a row; the automaton over all their
    # literals is built once, before the first question (it was rebuilt after each gate:
    # a third of a second of every process's start-up).
    from quaestio.analysis import gate

    builds = []
    build = gate._SharedLiterals._build

    def counted(self):
        builds.append(self._state is None)
        return build(self)

    monkeypatch.setattr(gate._SharedLiterals, "_build", counted)
    sats = load_satellites(extra=_one_cue("build_once_probe"))
    row = parse_question("What is the annual premium?", sats)
    assert row.answer_type == "amount"
    assert sum(builds) == 1


def _one_cue(word: str) -> dict:
    return {
        "cues": pl.DataFrame(
            {
                "cue_id": [f"probe_{word}"],
                "family": ["answer_type"],
                "target": ["text"],
                "language": ["en"],
                "pattern": [rf"\b{word}\b"],
                "weight": [0.1],
            }
        )
    }
