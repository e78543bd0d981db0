"""The decisive step of a run: its point of no return.

A state is *on course* for a golden path when some golden state of that path could be
turned into it without undoing anything the path does not redo itself. Concretely, for
golden state ``j`` of the path:

- the app's data are the same rows (nothing saved, created or deleted that the path
  would have to take back);
- the page is the same (the URL with its query: another product's page, or results of
  another search, is somewhere else; ids the app generated count as the same by
  ``similarity.same_url``);
- every control present in both whose value, checked or selected state differs is one
  that a later golden step (after ``j``) writes anyway, so the path overwrites it.

Controls that one state shows and the other does not (an open listbox, a popup, a
toast) are transient and not counted. The decisive step is the first step of the run's
final stretch of states that are on course for no golden path: from it on, every path
needs something undone. It is None when the last state is still on course (the run
stopped early or wandered but broke nothing), or when there are no steps.

>>> decisive_step(agent_trace, goldens)                  # doctest: +SKIP
7
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webharness.diagnosis.similarity import StateFeatures, same_url
from webharness.trace.models import EpisodeTrace
from webharness.trace.signatures import action_signature

__all__ = ["decisive_step", "on_course"]

_WRITTEN = slice(0, 3)  # value, checked, selected of COMPARED_FIELDS: what an action writes
_CARRIES_TARGET = frozenset({"keyboard_type", "press"})  # write into the field focused before


class _Path:
    """A golden path as the check reads it: its states grouped by page and rows, each with
    its written values and the targets that golden steps after it write."""

    def __init__(self, trace: EpisodeTrace, features: Sequence[StateFeatures]) -> None:
        targets: list[tuple[str, str] | None] = [None]
        last: tuple[str, str] | None = None
        for i in range(1, len(trace.steps)):
            sig = action_signature(trace, i)
            target = (sig.role, sig.name) if sig and sig.role and sig.name is not None else None
            if target is None and sig is not None and sig.kind in _CARRIES_TARGET:
                target = last
            last = target or last
            targets.append(target)
        # the (role, name) targets of the golden steps after each state
        after: list[frozenset[tuple[str, str]]] = []
        later: set[tuple[str, str]] = set()
        for target in reversed(targets):
            after.append(frozenset(later))
            if target is not None:
                later.add(target)
        after.reverse()
        self._by_place: dict[tuple[str, Any], list[tuple[StateFeatures, frozenset[Any]]]] = {}
        for f, writes in zip(features, after):
            self._by_place.setdefault((f.url, f.sets[2]), []).append((f, writes))

    def admits(self, features: StateFeatures) -> bool:
        """Whether some golden state becomes ``features`` without undoing anything."""
        mine = features.sets[1]
        for theirs, writes in self._by_place.get((features.url, features.sets[2]), ()):
            if same_url(features, theirs) and _rewritten(mine, theirs.sets[1]) <= writes:
                return True
        return False


def on_course(
    agent: Sequence[StateFeatures],
    goldens: Sequence[tuple[EpisodeTrace, Sequence[StateFeatures]]],
) -> list[bool]:
    """For each agent state, whether some golden path can still be completed from it
    without undoing anything (see the module docstring)."""
    paths = [_Path(trace, features) for trace, features in goldens]
    return [any(p.admits(f) for p in paths) for f in agent]


def decisive_step(
    agent: EpisodeTrace,
    goldens: Sequence[tuple[EpisodeTrace, Sequence[StateFeatures]]],
    agent_features: Sequence[StateFeatures],
) -> int | None:
    """The first step (a ``StepRecord.index``) of the run's final stretch of states that no
    golden path admits; None when its last state is still on course.

    Args:
        agent: the agent's trace.
        goldens: each golden trace with its states' features.
        agent_features: the agent's states' features, in step order.
    """
    course = on_course(agent_features, goldens)
    if not course or course[-1]:
        return None
    first = len(course) - 1
    while first > 0 and not course[first - 1]:
        first -= 1
    return agent.steps[first].index if first > 0 else None


def _rewritten(mine: frozenset[Any], theirs: frozenset[Any]) -> set[tuple[str, str]]:
    """The (role, name) of the controls both states have whose written fields (value,
    checked, selected) differ. ``mine`` and ``theirs`` hold (key, flags) pairs; only the
    pairs in one and not the other can differ, so only those are looked at."""
    a: dict[Any, Any] = {}
    b: dict[Any, Any] = {}
    for key, flags in mine ^ theirs:
        (a if (key, flags) in mine else b)[key] = flags[_WRITTEN]
    return {k[:2] for k in a.keys() & b.keys() if a[k] != b[k]}
