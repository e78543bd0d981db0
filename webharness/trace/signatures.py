"""Actions by meaning: the kind, semantic target and value of an action, with its ref
resolved away, so that steps of different runs can be compared."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from webharness.actions import ActionParseError, parse_action
from webharness.semantic import Element, SemanticState
from webharness.trace.models import EpisodeTrace

__all__ = ["ActionSignature", "action_signature"]

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
    before = trace.steps[i - 1].state if i > 0 else None
    ref = action.ref_target
    target = _target(action, before)
    return ActionSignature(
        kind=action.kind,
        effect=_effect(action, target),
        role=target.role if target else None,
        name=target.name if target else None,
        value=_value(action, target, before),
        unresolved_ref=ref if ref and target is None else None,
    )


def _target(action: Any, before: SemanticState | None) -> Element | None:
    if before is None:
        return None
    if action.ref_target:
        return before.by_ref(action.ref_target)
    point = _point(action)
    return None if point is None else _under(before, *point)


def _point(action: Any) -> tuple[float, float] | None:
    """Where a pointer action acts: its point, or where a drag starts."""
    if action.kind in ("mouse_click", "mouse_move"):
        return action.x, action.y
    if action.kind == "drag":
        return action.path[0]
    return None


def _under(state: SemanticState, x: float, y: float) -> Element | None:
    """Hit-test: the smallest box under the point."""
    under = [e for e in state.elements if _contains(e.bbox, x, y)]
    return min(under, key=lambda e: e.bbox[2] * e.bbox[3], default=None)


def _contains(bbox: tuple[float, float, float, float], x: float, y: float) -> bool:
    left, top, width, height = bbox
    return width > 0 and height > 0 and left <= x <= left + width and top <= y <= top + height


def _effect(action: Any, target: Element | None) -> str:
    kind = action.kind
    if kind in ("click", "mouse_click") and (action.button, action.count) != ("left", 1):
        return _CLICK_NAMES.get(action.count, "click") if action.button == "left" else kind
    if kind in ("click", "mouse_click") and target is not None and target.role in _TOGGLES:
        if target.checked is not None:
            return "uncheck" if target.checked and target.role != "radio" else "check"
    return "click" if kind == "mouse_click" and target is not None else kind


_CLICK_NAMES = {2: "double_click", 3: "triple_click"}


def _value(action: Any, target: Element | None, before: SemanticState | None) -> str | None:
    if action.kind in _VALUE_FIELD:
        return str(getattr(action, _VALUE_FIELD[action.kind]))
    if action.kind == "scroll":
        return f"{_sign(action.dx)},{_sign(action.dy)}"  # direction, not distance
    if action.kind in ("click", "mouse_click") and action.button != "left":
        return action.button
    if action.kind == "drag_and_drop":  # where it was dropped, by meaning
        dropped = before.by_ref(action.to_ref) if before is not None else None
        return f"{dropped.role} {dropped.name}" if dropped else action.to_ref
    point = _point(action) if target is None else None
    return None if point is None else f"{point[0]:.0f},{point[1]:.0f}"


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)
