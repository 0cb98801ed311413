"""Evaluate question_df (and retrieval) against a gold set: per-field metrics and failures."""

from .gold import GOLD_FIELDS, GoldField, read_gold
from .metrics import Evaluation, evaluate
from .retrieval import evaluate_retrieval

__all__ = ["GOLD_FIELDS", "Evaluation", "GoldField", "evaluate", "evaluate_retrieval",
           "read_gold"]
