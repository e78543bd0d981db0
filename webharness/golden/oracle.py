"""The oracle: plays a golden path by resolving its semantic targets to current refs.

It also copes with the perturbations, reading what they did in ``info["perturbations"]``
(it is the oracle: it may know): it dismisses a popup before acting, resolves button and
link names through a label drift, moves the pointer onto its target before acting
while a layout shift is armed (so the page jumps before the click rather than under it),
and on a perturbed page waits, bounded, for the end state before ``done()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webharness import actions as A
from webharness.perturbations.label_drift import DRIFTING_ROLES, drift_text
from webharness.semantic import SemanticState
from webharness.spec.catalogue import get_task
from webharness.spec.task_spec import GoldenPath, GoldenStep, TaskSpec
from webharness.spec.templating import fill
from webharness.trace.models import TaskInstance

# How many times the oracle waits for a target that is not on the page yet (async content).
MAX_WAITS_PER_STEP = 8
WAIT_MS = 1000
MAX_TRIES = 3  # dismissing one popup, or hovering to set off a layout shift
POINTER_ACTIONS = frozenset(
    {
        A.ActionKind.CLICK,
        A.ActionKind.FILL,
        A.ActionKind.CHECK,
        A.ActionKind.UNCHECK,
        A.ActionKind.HOVER,
        A.ActionKind.SELECT_OPTION,
    }
)


def golden_paths(spec: TaskSpec, instance: TaskInstance) -> list[GoldenPath]:
    """The spec's golden paths with the instance's parameters filled in."""
    params = instance.params
    return [
        GoldenPath.model_validate(fill(p.model_dump(mode="json"), params))
        for p in spec.golden_paths
    ]


def resolve_step(
    step: GoldenStep, state: SemanticState, drift: Mapping[str, str] | None = None
) -> Any | None:
    """The concrete action for a golden step in this state, or None if its target is absent.

    ``drift`` is a label drift's word mapping: button and link names are looked up as
    drifted first, then as written.
    """
    ref = None
    if step.target is not None:
        target = step.target
        names = [target.name]
        if drift and target.role in DRIFTING_ROLES:
            names.insert(0, drift_text(target.name, drift))
        found = (state.find(target.role, name, exact=target.exact) for name in names)
        matches = next((m for m in found if len(m) > target.nth), None)
        if matches is None:
            return None
        ref = matches[target.nth].ref
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
        A.ActionKind.FILL: "text",
        A.ActionKind.KEYBOARD_TYPE: "text",
        A.ActionKind.SEND_MSG_TO_USER: "text",
        A.ActionKind.SELECT_OPTION: "option",
        A.ActionKind.PRESS: "key",
        A.ActionKind.GOTO: "url",
        A.ActionKind.ASK_USER: "question",
        A.ActionKind.REPORT_INFEASIBLE: "reason",
        A.ActionKind.WAIT: "ms",
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
    the page yet is waited for (bounded), as content may arrive late. It plays from the
    spec given to ``reset`` (``play_episode`` gives the env's own, as ``reads_spec`` asks),
    else from the catalogue's spec of the instance's env id.
    """

    name = "oracle"
    reads_spec = True  # play_episode passes the env's task spec to reset

    def __init__(self, path_id: str | None = None) -> None:
        self.path_id = path_id
        self._steps: list[GoldenStep] = []
        self._waits = 0
        self._tries: dict[str, int] = {}  # per popup / layout shift: attempts so far

    def reset(self, instance: TaskInstance, spec: TaskSpec | None = None) -> None:
        spec = spec or get_task(instance.env_id)
        paths = golden_paths(spec, instance)
        chosen = (
            next((p for p in paths if p.id == self.path_id), None)
            if self.path_id
            else (paths[0] if paths else None)
        )
        if chosen is None:
            known = [p.id for p in paths]
            raise ValueError(
                f"task {spec.id!r} has no golden path {self.path_id!r}; it has {known}"
            )
        self.path = chosen
        self._steps = list(chosen.steps)
        self._waits = 0
        self._tries = {}

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        state: SemanticState = info["semantic_state"]
        events = info.get("perturbations") or []
        dismiss = self._dismiss_popup(state, events)
        if dismiss is not None:
            return dismiss
        drift = _drift_map(events)
        while self._steps:
            step = self._steps[0]
            action = resolve_step(step, state, drift)
            if (
                events
                and step.action is A.ActionKind.DONE
                and not info.get("success")
                and self._wait_more()
            ):
                return A.Wait(ms=WAIT_MS).dsl()  # on a perturbed page the end state may come late
            if action is None and step.optional:
                self._steps.pop(0)
                continue
            if action is None:
                if not self._wait_more():
                    self._steps.pop(0)  # give up on this step; the criteria will tell
                    continue
                return A.Wait(ms=WAIT_MS).dsl()
            if (
                _shift_armed(events)
                and step.action in POINTER_ACTIONS
                and self._try("layout_shift")
            ):
                return A.Hover(ref=action.ref).dsl()  # let the page jump now, then act
            self._steps.pop(0)
            self._waits = 0
            return action.dsl()
        return A.Done().dsl()

    def _wait_more(self) -> bool:
        """Count one more wait for the current step; False (and reset) when out of waits."""
        if self._waits >= MAX_WAITS_PER_STEP:
            self._waits = 0
            return False
        self._waits += 1
        return True

    def _dismiss_popup(self, state: SemanticState, events: list[dict[str, Any]]) -> str | None:
        """A click on the dismiss button of the topmost open perturbation popup, if any."""
        for popup in sorted(_open_popups(events), key=lambda d: -d["layer"]):
            buttons = state.find("button", popup["dismiss"])
            if buttons and self._try("popup:" + popup["popup"]):
                return A.Click(ref=buttons[0].ref).dsl()
        return None

    def _try(self, key: str) -> bool:
        self._tries[key] = self._tries.get(key, 0) + 1
        return self._tries[key] <= MAX_TRIES


def _open_popups(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The popups a perturbation showed and nobody has dismissed yet."""
    shown = {
        e["detail"]["popup"]: e["detail"]
        for e in events
        if e["kind"] == "popup" and e["detail"]["action"] == "shown"
    }
    for e in events:
        if e["kind"] == "popup" and e["detail"]["action"] == "dismissed":
            shown.pop(e["detail"]["popup"], None)
    return list(shown.values())


def _drift_map(events: list[dict[str, Any]]) -> dict[str, str]:
    drift: dict[str, str] = {}
    for e in events:
        if e["kind"] == "label_drift":
            drift.update(e["detail"]["map"])
    return drift


def _shift_armed(events: list[dict[str, Any]]) -> bool:
    """A layout shift is armed and has not fired yet: the next pointer input sets it off."""
    actions = [e["detail"]["action"] for e in events if e["kind"] == "layout_shift"]
    return "armed" in actions and "shifted" not in actions
