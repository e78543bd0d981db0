"""Per-step checks: the action's own error, a no-op where a change was needed, input the
app rejected, and runs of the same ineffective action."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from webharness.action_result import ActionErrorKind
from webharness.actions import ENDING_ACTIONS, PAGE_FREE_ACTIONS, Action, ActionKind, Press
from webharness.diagnosis.failures.codes import ERROR_CODES, FailureCode
from webharness.diagnosis.failures.evidence import ElementRef, InvalidField
from webharness.diagnosis.failures.notes import StepFailure, note, sort_notes
from webharness.diagnosis.failures.page_life import (
    arrival_alerts,
    caused_by_agent,
    new_document,
    submits,
)
from webharness.diagnosis.failures.signals import (
    BUSY_WORDS,
    is_invalid,
    reads_as_success,
    rejected_by,
)
from webharness.diagnosis.failures.steps import TraceStep, acting_steps
from webharness.semantic import Element, SemanticState
from webharness.trace.models import EpisodeTrace, StepRecord
from webharness.trace.pointer import element_under, pointer_hit, pointer_point
from webharness.trace.signatures import SELECTION_KEYS

__all__ = [
    "action_failure",
    "needs_change",
    "repeated_actions",
    "same_rejection_again",
    "stale_point",
    "step_failures",
    "validation_failure",
]

# Actions whose purpose is to change the page; a no-op of theirs is a failure.
_CHANGE_EXPECTED = frozenset(
    {
        ActionKind.CLICK,
        ActionKind.FILL,
        ActionKind.SELECT_OPTION,
        ActionKind.CHECK,
        ActionKind.UNCHECK,
        ActionKind.DRAG_AND_DROP,
        ActionKind.PRESS,
        ActionKind.HOLD_KEY,
        ActionKind.MOUSE_CLICK,
        ActionKind.DRAG,
        ActionKind.KEYBOARD_TYPE,
        ActionKind.UPLOAD,
        ActionKind.GOTO,
        ActionKind.GO_BACK,
    }
)
# Keys that only move focus or select text, which the state fingerprint leaves out on
# purpose (a pixel agent selects a field's text before typing over it).
_FOCUS_KEYS = frozenset({"Tab", "Shift+Tab"}) | SELECTION_KEYS
# Text fields, where a click only moves focus (and the caret).
_FOCUS_ROLES = frozenset({"textbox", "searchbox", "spinbutton"})
# A control already in the state the action asks for needs no change.
_ALREADY_SATISFIED: dict[ActionKind, Callable[[Any, Element], bool]] = {
    ActionKind.CLICK: lambda action, e: e.role in _FOCUS_ROLES or e.selected is True,
    ActionKind.MOUSE_CLICK: lambda action, e: e.role in _FOCUS_ROLES or e.selected is True,
    ActionKind.FILL: lambda action, e: e.value == action.text,
    ActionKind.SELECT_OPTION: lambda action, e: e.value == action.option,
    ActionKind.CHECK: lambda action, e: e.checked is True,
    ActionKind.UNCHECK: lambda action, e: e.checked is False,
}


def step_failures(trace: EpisodeTrace) -> list[StepFailure]:
    """A note for every failed or ineffective step, in step order (no episode-level checks).

    Args:
        trace: the recorded episode.

    Returns:
        The notes of ``action_failure``, ``validation_failure`` and ``repeated_actions``.
    """
    notes: list[StepFailure] = []
    for step in acting_steps(trace):
        if step.record.action is not None:
            notes += [n for n in (action_failure(step), validation_failure(step)) if n]
    return sort_notes(notes + repeated_actions(trace))


def action_failure(step: TraceStep) -> StepFailure | None:
    """The action's own error kind, or a no-op where a change was needed.

    Writes ``error`` and ``result_message`` when the harness reported an error.
    """
    result, action = step.result, step.action
    # Without a recorded result, an action we cannot parse is still a protocol error.
    error = result.error if result else (None if action else ActionErrorKind.UNPARSEABLE)
    if error is not None:
        message = result.message if result else ""
        evidence = step.evidence(error=error.value, result_message=message)
        return note(step.record, ERROR_CODES[error], evidence)
    if action is not None and needs_change(action, step.element) and not step.changed:
        again = same_rejection_again(step) or stale_point(step)
        return again or note(step.record, FailureCode.ACTION_NO_EFFECT, step.evidence())
    return None


def stale_point(step: TraceStep) -> StepFailure | None:
    """A pointer action at a point where the observation before the last one showed a
    control, and the last one none: the agent acted on an outdated picture of the page
    (the layout moved, the page changed), as with a stale ref.

    Read only when the pointer hit no control and nothing changed. The evidence's
    ``element`` is the control the point held then; ``stale_point`` says so.
    """
    hit, action = pointer_hit(step.record), step.action
    point = pointer_point(action) if action is not None else None
    if hit is None or not hit.in_viewport or point is None or step.element or step.pos < 2:
        return None
    earlier = element_under(step.trace.steps[step.pos - 2].state, *point)
    if earlier is None or element_under(step.before.state, *point) is not None:
        return None
    evidence = step.evidence(stale_point=True).model_copy(
        update={"element": ElementRef.of(earlier), "target_interactive": None}
    )
    text = "acted where an earlier observation showed this control; the page had moved it"
    return note(step.record, FailureCode.STALE_INDEX, evidence, text=text)


def same_rejection_again(step: TraceStep) -> StepFailure | None:
    """A resubmit that changed nothing because the app rejected it again, as it stood.

    The page before already showed a rejection (invalid fields, or an alert that does not
    read as a success and was not there when the page arrived by the reset or a link)
    and the action submits (Enter, or a click on a button): the page staying the same is
    the same rejection, so the fault is the value, not the click. Writes
    ``invalid_fields``, ``alerts``, ``rejected_again`` and ``alternative``.
    """
    before = step.before.state
    invalid = [_invalid_field(e) for e in before.elements if is_invalid(e)]
    on_arrival = arrival_alerts(step.trace, step.pos - 1)
    alerts = [
        a
        for a in before.alerts
        if not reads_as_success(a) and not BUSY_WORDS.search(a) and a not in on_arrival
    ]
    if not submits(step) or not (invalid or alerts):
        return None
    evidence = step.evidence(
        invalid_fields=invalid,
        alerts=alerts,
        rejected_again=True,
        alternative=FailureCode.ACTION_NO_EFFECT.value,
    )
    text = f"{_who(invalid, alerts)} rejected the input again, as it stood"
    shown = "; ".join([f"{f.name}: {f.message}" for f in invalid] + alerts)
    return note(step.record, FailureCode.VALIDATION_ERROR, evidence, detail=shown, text=text)


def needs_change(action: Action, element: Element | None) -> bool:
    """Whether the action is there to change the page and its target was not already so."""
    kind = ActionKind(action.kind)
    if kind not in _CHANGE_EXPECTED or (isinstance(action, Press) and action.key in _FOCUS_KEYS):
        return False
    satisfied = _ALREADY_SATISFIED.get(kind)
    return not (satisfied and element is not None and satisfied(action, element))


def validation_failure(step: TraceStep) -> StepFailure | None:
    """A field newly invalid, or a new alert while the page stayed put, after a page action.

    Only what the agent caused counts (``page_life.caused_by_agent``): a field it acted on
    on this page, or one the app flagged in answer to it. On a page a link or ``goto``
    brought, nothing is yet the agent's doing. Writes ``invalid_fields`` and ``alerts``.
    """
    action = step.action
    if action is None or ActionKind(action.kind) in PAGE_FREE_ACTIONS:
        return None
    invalid = [
        _invalid_field(e)
        for e in _newly_invalid(step.before.state, step.record.state)
        if caused_by_agent(step, e)
    ]
    arrived = new_document(step.before.state, step.record.state) and not submits(step)
    alerts = [] if arrived else _rejection_alerts(step.before, step.record)
    if not invalid and not alerts:
        return None
    evidence = step.evidence(invalid_fields=invalid, alerts=alerts)
    shown = "; ".join([f"{f.name}: {f.message}" for f in invalid] + alerts)
    text = f"{_who(invalid, alerts)} rejected the input"
    return note(step.record, FailureCode.VALIDATION_ERROR, evidence, detail=shown, text=text)


def _who(invalid: list[InvalidField], alerts: list[str]) -> str:
    """Who rejected it: the browser's constraint validation only when every flagged field
    is the browser's and the app said nothing."""
    if invalid and not alerts and all(f.rejected_by == "browser" for f in invalid):
        return "the browser's constraint validation"
    return "the app"


def _invalid_field(element: Element) -> InvalidField:
    return InvalidField(
        role=element.role,
        name=element.name,
        message=element.validation_message,
        rejected_by=rejected_by(element),
    )


def _newly_invalid(before: SemanticState, after: SemanticState) -> list[Element]:
    was_invalid = {(e.role, e.name) for e in before.elements if is_invalid(e)}
    return [e for e in after.elements if is_invalid(e) and (e.role, e.name) not in was_invalid]


def _rejection_alerts(before: StepRecord, step: StepRecord) -> list[str]:
    """New alerts count as a rejection only when the app did not move on and they do not
    report a success.

    A status such as "3 results found" comes with new elements, new app data, a new URL
    or met criteria; a rejection leaves all of those as they were. A save of unchanged
    data leaves them as they were too, so its "Ticket #12 updated" is told from a
    rejection by its words (``reads_as_success``).
    """
    diff = before.state.diff(step.state)
    if step.success or diff.url_changed or diff.app_changed or diff.added:
        return []
    return [
        a
        for a in step.state.alerts
        if a not in before.state.alerts and not BUSY_WORDS.search(a) and not reads_as_success(a)
    ]


def repeated_actions(trace: EpisodeTrace) -> list[StepFailure]:
    """One note per run of 3+ identical, consecutive, ineffective actions, at its first step.

    Writes ``count`` and ``steps`` (the StepRecord.index of each repeat).
    """
    notes = []
    for key, group in itertools.groupby(acting_steps(trace), key=_repeat_key):
        run = list(group)
        if key is not None and len(run) >= 3:
            steps = [s.index for s in run]
            evidence = run[0].evidence(count=len(steps), steps=steps)
            detail = f"{len(steps)} times in a row"
            notes.append(note(run[0].record, FailureCode.REPEATED_ACTION, evidence, detail))
    return notes


def _repeat_key(step: TraceStep) -> str | None:
    """The normalised action when it was ineffective, else None.

    Ineffective: it failed, or it changed nothing where a change was needed. Waiting,
    scrolling or hovering again is not a repeated failure, nor are outputs that are no
    action or end the episode.
    """
    action = step.action
    if action is None or ActionKind(action.kind) in ENDING_ACTIONS:
        return None
    no_effect = not step.changed and needs_change(action, step.element)
    return action.dsl() if step.failed or no_effect else None
