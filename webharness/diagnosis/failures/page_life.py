"""What the agent did on the page it is on: where the page's life began (the document
loaded, or was replaced whole), which fields the agent acted on since, and whether it got
there by a submit. A page's state on arrival is the app's, not the agent's doing: an
untouched ``required`` field holds the browser's "Please fill out this field." from load.
"""

from __future__ import annotations

from urllib.parse import urldefrag

from webharness.actions import ActionKind, Press
from webharness.diagnosis.failures.steps import TraceStep
from webharness.semantic import Element, SemanticState
from webharness.trace.models import EpisodeTrace

__all__ = [
    "acted_on",
    "arrival_alerts",
    "caused_by_agent",
    "new_document",
    "page_start",
    "submits",
]

# Keys and controls that submit a form: the app's answer to one is the app's doing.
_SUBMIT_KEYS = frozenset({"Enter"})
_SUBMIT_ROLES = frozenset({"button"})
_CLICKS = frozenset({ActionKind.CLICK, ActionKind.MOUSE_CLICK})
# Actions that write into the focused element rather than a ref.
_INTO_FOCUS = frozenset(
    {ActionKind.KEYBOARD_TYPE, ActionKind.PRESS, ActionKind.KEY_DOWN, ActionKind.HOLD_KEY}
)


def submits(step: TraceStep) -> bool:
    """Whether the step's action submits: Enter, or a click on a button that is not disabled
    (a disabled button: the agent missed it)."""
    action, element = step.action, step.element
    if isinstance(action, Press):
        return action.key in _SUBMIT_KEYS
    return (
        action is not None
        and ActionKind(action.kind) in _CLICKS
        and getattr(action, "button", "left") == "left"  # a right click opens a menu
        and element is not None
        and element.role in _SUBMIT_ROLES
        and not element.disabled
    )


def new_document(before: SemanticState, after: SemanticState) -> bool:
    """Whether ``after`` shows another page than ``before``: another URL (the fragment
    aside), or no element of ``before`` left (refs are never reused: a page loaded again
    at the same URL, a form the server sent back, a view replaced whole)."""
    if urldefrag(before.url).url != urldefrag(after.url).url:
        return True
    mine = {e.ref for e in before.elements}
    return bool(mine) and bool(after.elements) and not mine & {e.ref for e in after.elements}


def page_start(trace: EpisodeTrace, pos: int) -> int:
    """The position of the state where the page shown at ``pos`` began (0: the reset's)."""
    while pos > 0 and not new_document(trace.steps[pos - 1].state, trace.steps[pos].state):
        pos -= 1
    return pos


def acted_on(trace: EpisodeTrace, pos: int) -> dict[tuple[str, str], str | None]:
    """The elements the agent's actions on the page shown at ``pos`` targeted, up to
    ``pos`` (a ref, or the focused element for typing and keys), by (role, name): each
    with its value right after the agent's last action on it."""
    start = page_start(trace, pos)
    targets: dict[tuple[str, str], str | None] = {}
    for p in range(start + 1, pos + 1):
        element = _target(TraceStep(trace, p))
        if element is not None:
            key = (element.role, element.name)
            after = trace.steps[p].state.find(element.role, element.name)
            targets[key] = after[0].value if after else None
    return targets


def arrival_alerts(trace: EpisodeTrace, pos: int) -> list[str]:
    """The alerts the page shown at ``pos`` had on arrival, when it came by the reset or a
    link, ``goto`` or back (a banner, a notice): not the app's answer to the agent. None
    when a submit of the agent's brought the page: its alerts answer that submit."""
    start = page_start(trace, pos)
    if start > 0 and submits(TraceStep(trace, start)):
        return []
    return trace.steps[start].state.alerts


def caused_by_agent(step: TraceStep, field: Element) -> bool:
    """Whether a field flagged invalid after ``step`` is evidence against the agent's input.

    When the app flagged it (``aria-invalid``): when the agent acted on the field on this
    page, or the flag answers the agent (after an action on the same page, or on the
    page a submit brought). When only the browser's constraint message marks it: when
    the value it rejects is the agent's, the field as the agent's last action on this
    page left it. A message of the browser's own on a field nobody touched (a
    ``required`` field on a page just arrived at), or on one the app emptied after
    taking its value (a form cleared after a save), is not about the agent's input.
    """
    touched = acted_on(step.trace, step.pos)
    key = (field.role, field.name)
    if not field.invalid:
        return key in touched and touched[key] == field.value
    fresh = new_document(step.before.state, step.record.state)
    return key in touched or not fresh or submits(step)


def _target(step: TraceStep) -> Element | None:
    if step.element is not None:
        return step.element
    if step.kind in _INTO_FOCUS and step.before.state.focused:
        return step.before.state.by_ref(step.before.state.focused)
    return None
