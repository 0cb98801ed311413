"""Evaluate against a gold set: question_df per field, retrieval hits, confirmed answers."""

from .answers import evaluate_answers
from .gold import GOLD_FIELDS, GoldField, read_gold
from .metrics import Evaluation, evaluate
from .retrieval import evaluate_retrieval

__all__ = [
    "GOLD_FIELDS",
    "Evaluation",
    "GoldField",
    "evaluate",
    "evaluate_answers",
    "evaluate_retrieval",
    "read_gold",
]
