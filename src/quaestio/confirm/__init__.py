"""Answer-type confirmation: typed values in retrieved passages, and a verdict per question."""

from .patterns import Value, find_values
from .parsers import Amount

__all__ = ["Amount", "Value", "find_values"]
