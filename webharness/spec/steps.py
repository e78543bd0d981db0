"""Steps written against semantic targets (golden paths, setup steps), and turning one
into a concrete action on the page as it is now.

A target is an element by accessibility role and name, optionally ``within`` an ancestor
(a list item, a row, a region, a dialog: by role and name), so that three "Delete"
buttons, one per row, can be told apart without ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel, Field, model_validator

from webharness import actions as A
from webharness.actions import REF_ACTIONS, ActionKind
from webharness.semantic import Element, SemanticState
from webharness.spec.checks import SPEC_CONFIG
from webharness.spec.criteria import Criterion, Scope


class Target(BaseModel):
    """A semantic target: an element by accessibility role and name."""

    model_config = SPEC_CONFIG

    role: str
    name: str
    exact: bool = True
    nth: int = 0  # which match, when several share role and name
    within: Scope | None = None  # only elements inside this ancestor


class GoldenStep(BaseModel):
    """One step of a golden path (or of a task's setup), written against semantic targets."""

    model_config = SPEC_CONFIG

    action: ActionKind = Field(strict=False)  # from its name, as YAML and JSON write it
    target: Target | None = None
    value: str | bool | int | float | None = (
        None  # text, option, key, url, message, ms, "dx,dy", "x,y", button, checked
    )
    expect: Criterion | None = None  # must hold after the step
    optional: bool = False  # skipped when its target is not on the page
    note: str = ""

    @model_validator(mode="after")
    def _target_for_ref_actions(self) -> GoldenStep:
        if self.action in _NOT_A_STEP:
            raise ValueError(
                f"action {self.action.value!r} cannot be a step yet: its arguments do not fit "
                "one target and one value"
            )
        if self.action in REF_ACTIONS and self.target is None:
            raise ValueError(f"action {self.action.value!r} needs a target (role and name)")
        return self


# Actions a step's one target and one value cannot write: two targets, a path, a duration.
_NOT_A_STEP = frozenset({ActionKind.DRAG_AND_DROP, ActionKind.DRAG, ActionKind.HOLD_KEY})


class GoldenPath(BaseModel):
    model_config = SPEC_CONFIG

    id: str
    steps: list[GoldenStep] = Field(min_length=1)


class Found(NamedTuple):
    """Where a target was looked for: the element (None: not on the page), and whether
    its ``within`` scope is on the page at all (True when it has none)."""

    element: Element | None
    scope_found: bool = True


def find_target(target: Target, state: SemanticState, names: Sequence[str] = ()) -> Found:
    """The element a target names in this state.

    Args:
        target: the target.
        state: the page now (with ``nodes`` when the target has a scope).
        names: names to try first (a label drift's renaming), before the target's own.
    """
    within = None
    if target.within is not None:
        scope = target.within
        within = state.scopes(scope.role, scope.name, scope.exact)
        if not within:
            return Found(None, scope_found=False)
    for name in [*names, target.name]:
        matches = state.find(target.role, name, target.exact, within)
        if len(matches) > target.nth:
            return Found(matches[target.nth])
    return Found(None)


def step_action(step: GoldenStep, ref: str | None) -> Any:
    """The concrete action of a step, given the ref its target resolved to."""
    value, kind = step.value, step.action
    if kind is ActionKind.CHECK and str(value).lower() in ("false", "0", "no"):
        return A.Uncheck(ref=ref)  # a check step with value false means "make it unchecked"
    fields: dict[str, Any] = {"kind": kind.value}
    if ref is not None:
        fields["ref"] = ref
    fields.update(_value_fields(kind, value))
    return A.parse_action(fields)


_VALUE_FIELDS = {
    ActionKind.FILL: "text",
    ActionKind.KEYBOARD_TYPE: "text",
    ActionKind.SEND_MSG_TO_USER: "text",
    ActionKind.SELECT_OPTION: "option",
    ActionKind.PRESS: "key",
    ActionKind.KEY_DOWN: "key",
    ActionKind.KEY_UP: "key",
    ActionKind.MOUSE_DOWN: "button",
    ActionKind.MOUSE_UP: "button",
    ActionKind.GOTO: "url",
    ActionKind.ASK_USER: "question",
    ActionKind.REPORT_INFEASIBLE: "reason",
    ActionKind.WAIT: "ms",
}


def _value_fields(kind: ActionKind, value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if kind is ActionKind.SCROLL:
        dx, dy = (float(v) for v in str(value).split(","))
        return {"dx": dx, "dy": dy}
    if kind in (ActionKind.MOUSE_CLICK, ActionKind.MOUSE_MOVE):
        x, y = (float(v) for v in str(value).split(","))
        return {"x": x, "y": y}
    name = _VALUE_FIELDS.get(kind)
    if name is None:
        return {}
    return {name: int(value) if kind is ActionKind.WAIT else str(value)}
