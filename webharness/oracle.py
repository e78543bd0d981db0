"""The oracle: plays a golden path by resolving its semantic targets to current refs."""

from __future__ import annotations

from typing import Any

from webharness import actions as A
from webharness.catalogue import get_task
from webharness.semantic import SemanticState
from webharness.task_spec import GoldenPath, GoldenStep, TaskSpec
from webharness.templating import fill
from webharness.trace import TaskInstance

# How many times the oracle waits for a target that is not on the page yet (async content).
MAX_WAITS_PER_STEP = 8
WAIT_MS = 1000


def golden_paths(spec: TaskSpec, instance: TaskInstance) -> list[GoldenPath]:
    """The spec's golden paths with the instance's parameters filled in."""
    params = instance.params
    return [GoldenPath.model_validate(fill(p.model_dump(mode="json"), params)) for p in spec.golden_paths]


def resolve_step(step: GoldenStep, state: SemanticState) -> Any | None:
    """The concrete action for a golden step in this state, or None if its target is absent."""
    ref = None
    if step.target is not None:
        matches = state.find(step.target.role, step.target.name, exact=step.target.exact)
        if len(matches) <= step.target.nth:
            return None
        ref = matches[step.target.nth].ref
    value = step.value
    kind = step.action
    if kind is A.ActionKind.CHECK and str(value).lower() in ("false", "0", "no"):
        return A.Uncheck(ref=ref)  # a check step with value false means "make it unchecked"
    fields: dict[str, Any] = {"kind": kind.value}
    if ref is not None:
        fields["ref"] = ref
    fields.update(_value_fields(kind, value))
    return A.parse_action(fields)


def _value_fields(kind: A.ActionKind, value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    name = {
        A.ActionKind.FILL: "text", A.ActionKind.KEYBOARD_TYPE: "text", A.ActionKind.SEND_MSG_TO_USER: "text",
        A.ActionKind.SELECT_OPTION: "option", A.ActionKind.PRESS: "key", A.ActionKind.GOTO: "url",
        A.ActionKind.ASK_USER: "question", A.ActionKind.REPORT_INFEASIBLE: "reason", A.ActionKind.WAIT: "ms",
    }.get(kind)
    if kind is A.ActionKind.SCROLL:
        dx, dy = (float(v) for v in str(value).split(","))
        return {"dx": dx, "dy": dy}
    if kind is A.ActionKind.MOUSE_CLICK:
        x, y = (float(v) for v in str(value).split(","))
        return {"x": x, "y": y}
    if name is None:
        return {}
    return {name: int(value) if kind is A.ActionKind.WAIT else str(value)}


class OracleAgent:
    """Plays one golden path of the task (the first, or the one named ``path_id``).

    Optional steps whose target is absent are skipped; a required target that is not on
    the page yet is waited for (bounded), as content may arrive late.
    """

    name = "oracle"

    def __init__(self, path_id: str | None = None) -> None:
        self.path_id = path_id
        self._steps: list[GoldenStep] = []
        self._waits = 0

    def reset(self, instance: TaskInstance, spec: TaskSpec | None = None) -> None:
        spec = spec or get_task(instance.task_id)
        paths = golden_paths(spec, instance)
        chosen = next((p for p in paths if p.id == self.path_id), None) if self.path_id else (paths[0] if paths else None)
        if chosen is None:
            known = [p.id for p in paths]
            raise ValueError(f"task {spec.id!r} has no golden path {self.path_id!r}; it has {known}")
        self.path = chosen
        self._steps = list(chosen.steps)
        self._waits = 0

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        state: SemanticState = info["semantic_state"]
        while self._steps:
            step = self._steps[0]
            action = resolve_step(step, state)
            if action is None and step.optional:
                self._steps.pop(0)
                continue
            if action is None:
                if self._waits >= MAX_WAITS_PER_STEP:
                    self._steps.pop(0)  # give up on this step; the criteria will tell
                    self._waits = 0
                    continue
                self._waits += 1
                return A.Wait(ms=WAIT_MS).dsl()
            self._steps.pop(0)
            self._waits = 0
            return action.dsl()
        return A.Done().dsl()
