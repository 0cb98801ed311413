"""Open requests for information on a bare topic ask back, in English, French and Spanish.

The families were found on the even (tune) half of ClariQ: "tell me information about X",
"give me information on X" and "what to do in <place>" name a topic and nothing to find
out about it. A case or event ("what to do in case of fire") is a real question.
"""

import pytest

from quaestio import load_satellites, parse_question


@pytest.fixture(scope="module")
def sats():
    return load_satellites()


@pytest.mark.parametrize(
    "question",
    [
        "Tell me information about gardening.",
        "Show me some details about Lisbon.",
        "What to do in Arkansas",
        "Things to see in Lisbon?",
        "Donnez-moi des informations sur le jardinage.",
        "Trouvez-moi des informations sur Lisbonne.",
        "Que faire à Lyon ?",
        "Que voir à Marseille ?",
        "Dame información sobre la jardinería.",
        "Búscame información sobre Lisboa.",
        "¿Qué hacer en Sevilla?",
        "¿Qué visitar en Galicia?",
    ],
)
def test_an_open_request_on_a_bare_topic_is_too_broad(question, sats):
    assert parse_question(question, sats).clarification.ambiguity_reason == "too_broad"


@pytest.mark.parametrize(
    "question",
    [
        "What to do in case of fire?",
        "What to do in the event of a claim?",
        "Que faire en cas de sinistre ?",
        "¿Qué hacer en caso de siniestro?",
        "Tell me information about the exclusions.",
    ],
)
def test_a_case_or_a_known_concept_is_a_question(question, sats):
    assert parse_question(question, sats).clarification.ambiguity_reason is None
