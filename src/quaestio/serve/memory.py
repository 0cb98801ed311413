"""Follow-up turns: earlier questions as `context=`, and the previous row carried forward.

The parse already resolves references ("that contract") and fills dates and parties from
the context. What a follow-up leaves out entirely — "and for Germany?", "the same for
2023" name no topic — is carried here from the previous turn's row: its topic concepts and
their keywords, its answer type and shape, its dispatch columns, and every scope value the
new question does not set, each with origin `context`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..satellites import Satellites

# Columns a follow-up without a topic of its own takes from the turn before.
CARRIED = (
    "answer_type",
    "answer_shape",
    "detect_context",
    "answer_context",
    "need_summary",
    "chunk_strategy",
    "retrieval_k",
    "suggested_model",
)
SCOPE_LISTS = {
    "scope_sections": "sections",
    "scope_parties": "parties",
    "scope_jurisdictions": "jurisdictions",
    "scope_custom": "custom",
}


def context_for(turns: list[dict[str, Any]], limit: int) -> list[str]:
    """The questions of the last `limit` finished turns, latest last."""
    asked = [t["question"] for t in turns if t.get("row") and t.get("question")]
    return asked[-limit:] if limit > 0 else []


def topic_concepts(record: dict[str, Any], sats: Satellites) -> list[str]:
    """The concepts that name a topic, not a scope (a country, a currency, a party)."""
    scoped = sats.cached(
        "serve_scope_concepts",
        lambda s: frozenset(
            s.concepts.filter(s.concepts["scope_kind"].is_not_null())["concept"].to_list()
        ),
    )
    return [c for c in record.get("concepts") or () if c not in scoped]


def carry_forward(
    record: dict[str, Any], previous: dict[str, Any] | None, sats: Satellites
) -> dict[str, Any]:
    """The record of an elliptic follow-up completed from the previous turn's record.

    A question with a topic concept of its own is returned unchanged.
    """
    if not previous or topic_concepts(record, sats) or not topic_concepts(previous, sats):
        return record
    out = dict(record)
    carried = topic_concepts(previous, sats)
    out["concepts"] = carried + [c for c in record.get("concepts") or () if c not in carried]
    origin = f"context:{previous.get('question_id')}"
    out["keywords"] = list(record.get("keywords") or ()) + [
        {**k, "span_start": None, "span_end": None, "rule_id": origin}
        for k in previous.get("keywords") or ()
        if k.get("concept") in carried
    ]
    for column in CARRIED:
        if column in previous:
            out[column] = previous[column]
    origins = list(record.get("scope_origins") or ())
    _own_year(out, origins)
    for column, name in SCOPE_LISTS.items():
        if not out.get(column) and previous.get(column):
            out[column] = list(previous[column])
            origins += [
                {"name": name, "value": str(v), "origin": "context"} for v in previous[column]
            ]
    if out.get("scope_date_from") is None and out.get("scope_date_to") is None:
        for bound in ("date_from", "date_to"):
            value = previous.get(f"scope_{bound}")
            out[f"scope_{bound}"] = value
            if value is not None:
                origins.append({"name": bound, "value": str(value), "origin": "context"})
    out["scope_origins"] = origins
    return out


def _own_year(out: dict[str, Any], origins: list[dict[str, Any]]) -> None:
    """ "the same for 2023": a year the follow-up names replaces a carried date range.

    The date step reads a bare year as a range only after a range word ("in 2023"); in a
    follow-up with no topic of its own the year can only be the new period.
    """
    years = [
        int(k["text"])
        for k in out.get("keywords") or ()
        if k.get("source") == "anchor"
        and str(k.get("text", "")).isdigit()
        and len(str(k["text"])) == 4
        and 1900 <= int(k["text"]) <= 2100
        and k.get("span_start") is not None
    ]
    own = any(
        o.get("origin") == "question" and o.get("name") in ("date_from", "date_to")
        for o in origins
    )
    if len(years) != 1 or own:
        return
    origins[:] = [o for o in origins if o.get("name") not in ("date_from", "date_to")]
    out["scope_date_from"] = dt.date(years[0], 1, 1)
    out["scope_date_to"] = dt.date(years[0], 12, 31)
    origins += [
        {"name": "date_from", "value": f"{years[0]}-01-01", "origin": "question"},
        {"name": "date_to", "value": f"{years[0]}-12-31", "origin": "question"},
    ]
