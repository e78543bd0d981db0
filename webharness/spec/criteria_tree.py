"""Reading a criterion tree as a whole.

Every criterion in it, the JavaScript it needs evaluated, whether it needs the page's
scopes, the page's own verdict, how long the end may wait for it, and what its JavaScript
threw.
"""

from __future__ import annotations

from typing import Any

from webharness.spec.criteria import Count, CriteriaContext, Eventually, Not
from webharness.spec.page_reward import PageOutcome, PageReward

__all__ = [
    "criteria_errors",
    "js_expressions",
    "page_outcome",
    "settle_ms",
    "uses_scopes",
    "walk",
]


def walk(criterion: Any) -> list[Any]:
    """The criterion and every criterion nested in it."""
    nested = getattr(criterion, "of", None) or (
        [criterion.criterion] if isinstance(criterion, (Not, Eventually)) else []
    )
    return [criterion, *(c for child in nested for c in walk(child))]


def js_expressions(criterion: Any) -> list[str]:
    """The JS a criterion tree needs evaluated in the page, each expression once.

    They are its predicates, its selector counts, and a page reward's two expressions.
    """
    found = [getattr(c, "expression", None) for c in walk(criterion)]
    found += [e for c in walk(criterion) for e in getattr(c, "expressions", ())]
    return list(dict.fromkeys(e for e in found if e is not None))


def uses_scopes(criterion: Any) -> bool:
    """Whether judging the tree needs the page's nodes (a scope, a count by role)."""
    return any(
        getattr(c, "within", None) is not None or (isinstance(c, Count) and c.role is not None)
        for c in walk(criterion)
    )


def page_outcome(criterion: Any, ctx: CriteriaContext) -> PageOutcome | None:
    """Where the page's own episode stands, for a tree with a ``page_reward`` (else None)."""
    found = next((c for c in walk(criterion) if isinstance(c, PageReward)), None)
    return found.outcome(ctx) if found is not None else None


def settle_ms(criterion: Any) -> int:
    """How long the env may wait at the episode's end for the tree to hold (``eventually``)."""
    return max((c.within_ms for c in walk(criterion) if isinstance(c, Eventually)), default=0)


def criteria_errors(criterion: Any, ctx: CriteriaContext) -> list[str]:
    """What the tree's JavaScript threw in this state, one line each.

    A criterion that cannot be judged is an error the task's author must see, never a
    silent false.
    """
    return [
        f"js criterion {expression!r} threw {ctx.js_errors[expression]}"
        for expression in js_expressions(criterion)
        if expression in ctx.js_errors
    ]
