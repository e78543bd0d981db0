"""The oracle: plays a golden path by resolving its semantic targets to current refs.

It also copes with the perturbations, reading what they did in ``info["perturbations"]``
(it is the oracle: it may know): it dismisses a popup before acting, resolves button and
link names through a label drift, moves the pointer onto its target before acting
while a layout shift is armed (so the page jumps before the click rather than under it),
and on a perturbed page waits, bounded, for the end state before ``done()``.

With ``pixels=True`` it is the golden path's pixel twin: each step is played as pointer
and keyboard input at the centre of its target's box (``golden/pixels.py`` says how each
action is played, and that ``select_option`` stays a ref action).

Recording a golden trace, it checks each step's ``expect`` on the page after the step
(before it, for a step that ends the episode), waiting for it as for a late target; one that
never holds ends the recording with ``report_infeasible`` naming the step, what it expected
and what it saw; that, or an expect of the step that ended the episode that does not hold
on its last page, is ``expectation_fault``, which makes the recording not sound
(``golden.play.recording_fault``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webharness import actions as A
from webharness.drift import DRIFTING_ROLES, drift_text
from webharness.errors import TaskSpecError
from webharness.golden.pixels import pixel_actions, scroll_to
from webharness.semantic import SemanticState
from webharness.spec.catalogue import get_task
from webharness.spec.criteria import CriteriaContext
from webharness.spec.misses import miss
from webharness.spec.steps import find_target, step_action
from webharness.spec.task_spec import GoldenPath, GoldenStep, TaskSpec
from webharness.spec.templating import fill
from webharness.trace.models import EpisodeTrace, TaskInstance

# Refs start at e1: an action on e0 fails as unknown_ref (the target is not on the page).
NEVER_ISSUED_REF = "e0"
# How many times the oracle waits for a target that is not on the page yet (async content).
MAX_WAITS_PER_STEP = 8
WAIT_MS = 1000
MAX_TRIES = 3  # dismissing one popup, or hovering to set off a layout shift
ENDING_ACTIONS = frozenset(
    {A.ActionKind.DONE, A.ActionKind.SEND_MSG_TO_USER, A.ActionKind.REPORT_INFEASIBLE}
)
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
        GoldenPath.model_validate(fill(p.model_dump(mode="json"), params), strict=False)
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
        drifted = (
            [drift_text(target.name, drift)] if drift and target.role in DRIFTING_ROLES else []
        )
        element = find_target(target, state, drifted).element
        if element is None:
            return None
        ref = element.ref
    return step_action(step, ref)


class OracleAgent:
    """Plays one golden path of the task (the first, or the one named ``path_id``).

    With ``pixels=True`` it plays the path's pixel twin, as a computer-use agent would:
    clicks at the centres of the targets' boxes, typing into the focus, drags between
    boxes (``webharness.golden.pixels``), scrolling first to a target outside the
    ``viewport``. The runner's spec is ``oracle[pixels=true]``.

    Optional steps whose target is absent are skipped; a required target that is not on
    the page yet is waited for (bounded), as content may arrive late. It plays from the
    spec given to ``reset`` (``play_episode`` gives the env's own, as ``reads_spec`` asks),
    else from the catalogue's spec of the instance's env id.

    A target whose ``within`` scope is still not on the page after the waits is the spec's
    mistake when the path is being recorded as a golden trace: a
    ``TaskSpecError`` naming the file, the step's field and the scope (``recording``).
    Played as an agent,
    the oracle acts on the target anyway, on a ref the page never issued: the action fails
    as ``unknown_ref``, which the diagnosis reads as ``observation_miss`` at that step.
    """

    name = "oracle"
    reads_spec = True  # play_episode passes the env's task spec to reset

    def __init__(
        self,
        path_id: str | None = None,
        pixels: bool = False,
        viewport: tuple[int, int] = (1280, 720),
    ) -> None:
        self.path_id = path_id
        self.pixels, self.viewport = pixels, viewport
        self._queue: list[Any] = []  # pixels: the rest of the input that plays a step
        self._scrolls = 0  # pixels: scrolls towards the current step's target
        self.golden = False  # recording a golden trace: a scope not found is a spec error
        self._spec: TaskSpec | None = None
        self._path_index = 0
        self._steps: list[GoldenStep] = []
        self._waits = 0
        self._tries: dict[str, int] = {}  # per popup / layout shift: attempts so far
        self._expected: GoldenStep | None = None  # played; its expect is checked next
        self._asked = False  # has asked the user (for an ``asked_user`` expect)
        self._unmet_text: str | None = None  # recording: the expect that did not hold

    @classmethod
    def recording(cls, path_id: str) -> OracleAgent:
        """The oracle that plays golden path ``path_id`` into a golden trace."""
        oracle = cls(path_id)
        oracle.golden = True
        return oracle

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
        self.path, self._spec, self._path_index = chosen, spec, paths.index(chosen)
        self._steps = list(chosen.steps)
        self._waits = 0
        self._tries = {}
        self._expected, self._asked, self._unmet_text = None, False, None
        self._queue, self._scrolls = [], 0

    @property
    def next_step(self) -> int | None:
        """The number (1-based) of the golden step the oracle plays next; None while the
        input that plays a step as pixels is still going out."""
        return None if self._queue else len(self.path.steps) - len(self._steps) + 1

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self._queue:
            return str(self._queue.pop(0).dsl())
        state: SemanticState = info["semantic_state"]
        events = info.get("perturbations") or []
        dismiss = self._dismiss_popup(state, events)
        if dismiss is not None:
            return self._as_played(A.parse_action(dismiss), state) or dismiss
        unmet = self._check_expected(state)
        if unmet is not None:
            return unmet
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
                    missed = self._scope_missed(step, state)
                    self._steps.pop(0)  # give up on this step; the criteria will tell
                    if missed is not None:
                        return missed
                    continue
                return A.Wait(ms=WAIT_MS).dsl()
            if (
                _shift_armed(events)
                and step.action in POINTER_ACTIONS
                and self._try("layout_shift")
            ):
                hover = A.Hover(ref=action.ref)  # let the page jump now, then act
                return self._as_played(hover, state) or hover.dsl()
            ending = self._check_ending(step, state)
            if ending is not None:
                return ending
            scroll = self._scroll_first(action, state)
            if scroll is not None:
                return scroll
            self._steps.pop(0)
            self._waits, self._scrolls = 0, 0
            self._asked = self._asked or step.action is A.ActionKind.ASK_USER
            self._expected = step if self.golden and step.expect is not None else None
            played = self._as_played(action, state)
            if played == "":
                continue  # pixels: the control is already as the step asks
            return played or action.dsl()
        return A.Done().dsl()

    def _as_played(self, action: Any, state: SemanticState) -> str | None:
        """Pixels: the first input that plays ``action`` (the rest queued), "" for none;
        None when the action is played as it is."""
        twin = pixel_actions(action, state) if self.pixels else None
        if twin is None:
            return None
        if not twin:
            return ""
        self._queue = twin[1:]
        return str(twin[0].dsl())

    def _scroll_first(self, action: Any, state: SemanticState) -> str | None:
        """Pixels: a scroll towards a target whose centre is outside the viewport (a few
        at most: then the input goes where the box is)."""
        ref = getattr(action, "ref", None) or getattr(action, "from_ref", None)
        twin = self.pixels and isinstance(ref, str) and pixel_actions(action, state)
        element = state.by_ref(ref) if twin and isinstance(ref, str) else None
        scroll = scroll_to(element, self.viewport) if element is not None else None
        if scroll is None or self._scrolls >= MAX_TRIES:
            return None
        self._scrolls += 1
        return str(scroll.dsl())

    def _check_expected(self, state: SemanticState) -> str | None:
        """Recording: a wait while the last step's ``expect`` does not hold yet, the end of
        the recording when it never does; None once it holds (or there is none)."""
        step = self._expected
        if step is None or step.expect is None:
            return None
        context = CriteriaContext(state, asked_user=self._asked)
        if step.expect.holds(context):
            self._expected, self._waits = None, 0
            return None
        if self._wait_more():
            return A.Wait(ms=WAIT_MS).dsl()
        number = len(self.path.steps) - len(self._steps) - 1
        return self._give_up(number, step, context)

    def _check_ending(self, step: GoldenStep, state: SemanticState) -> str | None:
        """Recording: a step that ends the episode is checked before it is played (the page
        will not change), its answer being the step's own message."""
        if not self.golden or step.expect is None or step.action not in ENDING_ACTIONS:
            return None
        answer = str(step.value) if step.action is A.ActionKind.SEND_MSG_TO_USER else None
        context = CriteriaContext(state, final_answer=answer, asked_user=self._asked)
        if step.expect.holds(context):
            return None
        return self._give_up(len(self.path.steps) - len(self._steps), step, context)

    def expectation_fault(self, trace: EpisodeTrace) -> str | None:
        """Recording: the step whose ``expect`` did not hold, what it expected and what it
        saw; the last step's is judged on the trace's last page (the episode may have ended
        on it). None when every expect held."""
        step = self._expected
        if self._unmet_text is None and step is not None and trace.steps and trace.end is not None:
            end = trace.end
            context = CriteriaContext(trace.steps[-1].state, end.final_answer, end.asked_user)
            if step.expect is not None and not step.expect.holds(context):
                self._record_unmet(len(self.path.steps) - len(self._steps) - 1, step, context)
        return self._unmet_text

    def _give_up(self, number: int, step: GoldenStep, context: CriteriaContext) -> str:
        """End the recording: ``report_infeasible`` naming the expect that did not hold."""
        self._record_unmet(number, step, context)
        self._steps = []
        return A.ReportInfeasible(reason=self._unmet_text or "").dsl()

    def _record_unmet(self, number: int, step: GoldenStep, context: CriteriaContext) -> None:
        self._expected = None
        self._unmet_text = (
            f"golden_paths.{self._path_index}.steps.{number} ({step.action.value}, "
            f"path {self.path.id!r}): {miss(step.expect, context)}"
        )

    def _scope_missed(self, step: GoldenStep, state: SemanticState) -> str | None:
        """For a target whose ``within`` scope is not on the page: the spec error of a
        golden path, or an agent's action on a ref that never existed (None otherwise)."""
        target = step.target
        if target is None or target.within is None or find_target(target, state).scope_found:
            return None
        if not self.golden:
            return str(step_action(step, NEVER_ISSUED_REF).dsl())
        number = len(self.path.steps) - len(self._steps)
        spec = self._spec
        raise TaskSpecError(
            spec.source if spec is not None else "<TaskSpec>",
            f"golden_paths.{self._path_index}.steps.{number}.target.within",
            target.within.model_dump(),
            f"no {target.within.role} named {target.within.name!r} is on the page at this "
            f"step of golden path {self.path.id!r} (waited {MAX_WAITS_PER_STEP * WAIT_MS} ms); "
            "fix the scope's role or name, or the steps before it",
        )

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
