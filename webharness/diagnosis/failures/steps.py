"""One step of a trace as the checks read it: its record, the state before, the parsed
action, the element the action named, and whether anything changed."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from webharness.action_result import ActionErrorKind, ActionResult
from webharness.actions import Action, ActionKind, ActionParseError, parse_action
from webharness.diagnosis.failures.evidence import ElementRef, Evidence, PageSnapshot
from webharness.semantic import Element
from webharness.trace.models import EpisodeTrace, StepRecord
from webharness.trace.pointer import pointer_hit, pointer_point, pointer_target

__all__ = ["TraceStep", "acting_steps", "kind_of", "parse"]

# Errors after which the page never found the ref's node, so nothing is known about it.
_TARGET_UNSEEN = frozenset(
    {
        ActionErrorKind.UNPARSEABLE,
        ActionErrorKind.UNKNOWN_REF,
        ActionErrorKind.STALE_REF,
        ActionErrorKind.BROWSER_ERROR,
    }
)


@functools.lru_cache(maxsize=4096)
def parse(text: str | None) -> Action | None:
    """The typed action, or None for output that is not one (actions are frozen: safe to share)."""
    if text is None:
        return None
    try:
        return parse_action(text)
    except ActionParseError:
        return None


def kind_of(text: str | None) -> ActionKind | None:
    """The kind of the action ``text`` writes, or None for output that is not one."""
    action = parse(text)
    return ActionKind(action.kind) if action is not None else None


@dataclass(frozen=True, eq=False)
class TraceStep:
    """``trace.steps[pos]`` with what the checks ask of it (at ``pos`` 0, the reset state,
    there is no action and no step ``before``)."""

    trace: EpisodeTrace
    pos: int  # position in trace.steps, not StepRecord.index

    @property
    def record(self) -> StepRecord:
        return self.trace.steps[self.pos]

    @property
    def before(self) -> StepRecord:
        """The step whose state the agent saw when it chose this action."""
        return self.trace.steps[self.pos - 1]

    @property
    def index(self) -> int:
        return self.record.index

    @property
    def action(self) -> Action | None:
        return parse(self.record.action)

    @property
    def kind(self) -> ActionKind | None:
        return kind_of(self.record.action)

    @property
    def result(self) -> ActionResult | None:
        return self.record.action_result

    @property
    def failed(self) -> bool:
        return self.result is not None and not self.result.ok

    @property
    def changed(self) -> bool:
        """Whether the action changed the page (as the harness reported, else by state diff)."""
        if self.result is not None:
            return self.result.state_changed
        return bool(self.before.state.diff(self.record.state))

    @functools.cached_property
    def element(self) -> Element | None:
        """The element the action's ref named, from the latest earlier state that had it;
        for a pointer action, the control it hit (``trace.pointer.pointer_target``).

        Searching back past the previous state is what resolves a stale ref.
        """
        action = self.action
        ref = action.ref_target if action is not None else None
        if ref is None:
            has_point = action is not None and self.pos > 0
            return pointer_target(action, self.record, self.before.state) if has_point else None
        states = (self.trace.steps[p].state for p in range(self.pos - 1, -1, -1))
        return next((e for state in states if (e := state.by_ref(ref))), None)

    def evidence(self, **extra: Any) -> Evidence:
        """The evidence every note of this step carries, with ``extra`` fields of its rule:
        the action, its kind, its target as the agent saw it, and the page after."""
        action, element = self.action, self.element
        page_had_ref = action is not None and bool(action.ref_target) and self._target_found
        hit = pointer_hit(self.record)
        return Evidence(
            action=self.record.action,
            kind=action.kind if action is not None else None,
            element=ElementRef.of(element) if element is not None else None,
            page=PageSnapshot.of(self.record.state),
            target_disabled=element.disabled if element is not None else None,
            # The page found the ref's node but no state listed it: a heading, a text, a
            # cell...; or the pointer hit no control (empty space, a heading's text).
            target_interactive=False
            if element is None and (page_had_ref or self._pointed_at_nothing)
            else None,
            pointer=hit,
            **extra,
        )

    @property
    def _pointed_at_nothing(self) -> bool:
        """A pointer action whose point, inside the viewport, held no control."""
        hit = pointer_hit(self.record)
        if hit is None:  # an old trace: its point, when it has one, tested offline
            return self.action is not None and pointer_point(self.action) is not None
        return hit.in_viewport and self.action is not None and self.action.kind != "scroll"

    @property
    def _target_found(self) -> bool:
        """Whether the page found the node the ref named (whatever happened next)."""
        return self.result is not None and self.result.error not in _TARGET_UNSEEN


def acting_steps(trace: EpisodeTrace) -> list[TraceStep]:
    """Every step that follows an action (all but step 0), in order."""
    return [TraceStep(trace, pos) for pos in range(1, len(trace.steps))]
