"""Answer-type confirmation: typed values in retrieved passages, and a verdict per question.

`find_values(text, answer_type)` runs the `answer_type_patterns` rows on any text;
`confirm(question_df, hits_df)` returns `Confirmation(answers, verdicts)`: answers_df (one row
per question, passage and value, `ANSWER_SCHEMA`) and one verdict per question
(`VERDICT_SCHEMA`); `verdicts(question_df, hits_df)` is the second half alone.
"""

from .confirm import Confirmation, confirm
from .inputs import ConfirmInputError
from .parsers import Amount
from .patterns import Value, find_values
from .schema import ANSWER_SCHEMA, VERDICT_SCHEMA, VERDICTS


def verdicts(question_df, hits_df, **options):
    """One row per question: verdict (found / not_found / no_evidence / skipped),
    confidence, best value, reason. Takes the options of `confirm`."""
    return confirm(question_df, hits_df, **options).verdicts


__all__ = [
    "ANSWER_SCHEMA",
    "Amount",
    "ConfirmInputError",
    "Confirmation",
    "VERDICTS",
    "VERDICT_SCHEMA",
    "Value",
    "confirm",
    "find_values",
    "verdicts",
]
