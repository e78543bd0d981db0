"""What a criterion that does not hold saw instead: one line, for a golden step's
``expect`` that failed while its path was recorded (expected this, saw that)."""

from __future__ import annotations

import json
from typing import Any

from webharness.spec.criteria import (
    AllOf,
    AskedUser,
    Count,
    CriteriaContext,
    Current,
    DbRecords,
    ElementState,
    Eventually,
    FinalAnswer,
    HeadingShown,
    TextVisible,
    TitleIs,
    UrlIs,
)

SHOWN = 4  # elements, headings or rows named, at most
TEXT_CHARS = 160


def miss(criterion: Any, ctx: CriteriaContext) -> str:
    """``expected <criterion>, saw <what the page had>`` for a criterion that does not hold;
    of ``all``, its first part that does not."""
    if isinstance(criterion, AllOf):
        return next((miss(c, ctx) for c in criterion.of if not c.holds(ctx)), "")
    if isinstance(criterion, Eventually):
        return miss(criterion.criterion, ctx)
    written = criterion.model_dump(exclude_defaults=True, mode="json")
    return (
        f"expected {json.dumps({'kind': criterion.kind, **written})}, saw {_seen(criterion, ctx)}"
    )


def _seen(criterion: Any, ctx: CriteriaContext) -> str:
    state = ctx.state
    if isinstance(criterion, UrlIs):
        return f"the URL {state.url!r}"
    if isinstance(criterion, TitleIs):
        return f"the title {state.title!r}"
    if isinstance(criterion, HeadingShown):
        return f"headings {[h.text for h in state.headings[:SHOWN]]}"
    if isinstance(criterion, (ElementState, Current)):
        same = [e for e in state.elements if e.role == criterion.role][:SHOWN]
        shown = [e.model_dump(include={"name", "value", "checked", "selected"}) for e in same]
        return f"{criterion.role} elements {shown} on {state.url!r}"
    if isinstance(criterion, Count) and criterion.role is not None:
        scope = criterion.within
        within = None if scope is None else state.scopes(scope.role, scope.name, scope.exact)
        n = state.count(criterion.role, criterion.name, criterion.exact, within)
        return f"{n} of them on {state.url!r}"
    if isinstance(criterion, DbRecords):
        rows, hits = state.app.get(criterion.collection, []), criterion.matching(state)
        return (
            f"{len(hits)} of the {len(rows)} rows of {criterion.collection!r} match: {hits[:SHOWN]}"
        )
    if isinstance(criterion, FinalAnswer):
        return f"the answer {ctx.final_answer!r}"
    if isinstance(criterion, AskedUser):
        return f"asked_user {ctx.asked_user}"
    if isinstance(criterion, TextVisible):
        return f"the page's text {state.text[:TEXT_CHARS]!r} on {state.url!r}"
    return f"the page at {state.url!r}"
