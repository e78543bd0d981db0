"""Actions by meaning: the kind, semantic target and value of an action, with its ref
resolved away, so that steps of different runs can be compared."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from webharness.actions import ActionParseError, parse_action
from webharness.semantic import Element, SemanticState
from webharness.trace.models import EpisodeTrace, StepRecord
from webharness.trace.pointer import pointer_point, pointer_target

__all__ = ["PREPARING_EFFECTS", "SELECTION_KEYS", "ActionSignature", "action_signature"]

_TOGGLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
_VALUE_FIELD = {
    "fill": "text",
    "select_option": "option",
    "press": "key",
    "key_down": "key",
    "key_up": "key",
    "hold_key": "key",
    "mouse_down": "button",
    "mouse_up": "button",
    "keyboard_type": "text",
    "goto": "url",
}


class ActionSignature(BaseModel):
    """An action by meaning: kind, semantic target and value, with the ref resolved away."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str  # as written: "click"
    effect: str  # what it does: a click on an unchecked checkbox is "check"
    role: str | None = None
    name: str | None = None
    value: str | None = None  # text typed, option chosen, key, URL or scroll direction
    unresolved_ref: str | None = None  # a ref the state before the action did not have

    def same_effect(self, other: ActionSignature) -> bool:
        """Same effect on the same semantic target with the same value (refs ignored)."""
        return self._key() == other._key()

    def describe(self) -> str:
        """A short reading, e.g. ``fill textbox 'Email' = 'ada@example.org'``."""
        target = f" {self.role} {self.name!r}" if self.role else ""
        target = target or (f" {self.unresolved_ref}" if self.unresolved_ref else "")
        return f"{self.kind}{target}" + (f" = {self.value!r}" if self.value is not None else "")

    def _key(self) -> tuple[Any, ...]:
        name = None if self.name is None else self.name.strip().lower()
        return (self.effect, self.role, name, self.value, self.unresolved_ref)


def action_signature(trace: EpisodeTrace, i: int) -> ActionSignature | None:
    """The meaning of the action that led to ``trace.steps[i]``; None for step 0.

    A ref is resolved against the state *before* the action (``steps[i - 1]``), since
    refs differ between runs but role+name do not. Message texts (answers, questions)
    are left out: the criteria judge them, not the alignment.

    Args:
        trace: the episode.
        i: a position in ``trace.steps``.

    Returns:
        The signature; an output that is no action has the effect ``"unparseable"``.
    """
    text = trace.steps[i].action
    if text is None:
        return None
    try:
        action = parse_action(text)
    except ActionParseError:
        return ActionSignature(kind="unparseable", effect="unparseable", value=text)
    record = trace.steps[i]
    before = trace.steps[i - 1].state if i > 0 else None
    ref = action.ref_target
    target = _target(action, record, before)
    return ActionSignature(
        kind=action.kind,
        effect=_effect(action, target, record),
        role=target.role if target else None,
        name=target.name if target else None,
        value=_value(action, target, before, record),
        unresolved_ref=ref if ref and target is None else None,
    )


def _target(action: Any, record: StepRecord, before: SemanticState | None) -> Element | None:
    """The ref's element, what a pointer action hit (``trace.pointer``), or the focused
    element that typing and keys went to."""
    if before is None:
        return None
    if action.ref_target:
        return before.by_ref(action.ref_target)
    if action.kind in _INTO_FOCUS:
        return before.by_ref(before.focused) if before.focused else None
    return pointer_target(action, record, before)


def _effect(action: Any, target: Element | None, record: StepRecord) -> str:
    kind = action.kind
    end = record.action_result.pointer_end if record.action_result else None
    if kind == "drag" and target is not None and end is not None and end.role:
        return "drag_and_drop"  # what drag_and_drop(from_ref, to_ref) does, by meaning
    if kind in ("click", "mouse_click") and (action.button, action.count) != ("left", 1):
        return _CLICK_NAMES.get(action.count, "click") if action.button == "left" else kind
    if kind in ("click", "mouse_click") and target is not None and target.role in _TOGGLES:
        if target.checked is not None:
            return "uncheck" if target.checked and target.role != "radio" else "check"
    if kind in ("click", "mouse_click") and target is not None and target.role in _FOCUS_ROLES:
        return "focus"
    if kind == "press" and action.key in SELECTION_KEYS:
        return "select_text"
    if kind == "keyboard_type" and target is not None and _holds(record, target, action.text):
        return "fill"  # typing that leaves the field holding the text is what fill() does
    return "click" if kind == "mouse_click" and target is not None else kind


def _holds(record: StepRecord, target: Element, text: str) -> bool:
    after = record.state.by_ref(target.ref)
    return after is not None and after.value == text


_CLICK_NAMES = {2: "double_click", 3: "triple_click"}
# Actions that go to the focused element (a press with a ref goes to the ref's).
_INTO_FOCUS = frozenset({"keyboard_type", "press"})
# Text fields, where a plain click only puts the caret: its effect is "focus".
_FOCUS_ROLES = frozenset({"textbox", "searchbox", "spinbutton"})
# Keys that only select text, as a pixel agent does before typing over a field's value.
SELECTION_KEYS = frozenset({"Control+a", "Meta+a"})
# The effects of input that only prepares the next (focus, a text selection): the
# alignment does not count such a step, changing nothing, as a divergence.
PREPARING_EFFECTS = frozenset({"focus", "select_text"})


def _value(
    action: Any, target: Element | None, before: SemanticState | None, record: StepRecord
) -> str | None:
    if action.kind in _VALUE_FIELD:
        return str(getattr(action, _VALUE_FIELD[action.kind]))
    if action.kind == "scroll":
        return f"{_sign(action.dx)},{_sign(action.dy)}"  # direction, not distance
    if action.kind in ("click", "mouse_click") and action.button != "left":
        return action.button
    if action.kind == "drag_and_drop":  # where it was dropped, by meaning
        dropped = before.by_ref(action.to_ref) if before is not None else None
        return f"{dropped.role} {dropped.name}" if dropped else action.to_ref
    end = record.action_result.pointer_end if record.action_result else None
    if action.kind == "drag" and target is not None and end is not None and end.role:
        return f"{end.role} {end.name}"  # as drag_and_drop's value reads
    point = pointer_point(action) if target is None else None
    return None if point is None else f"{point[0]:.0f},{point[1]:.0f}"


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)
