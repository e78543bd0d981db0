"""Deliberately faulty scripted agents: is each annotated with the right code, step and stage?

Every faulty agent wraps the oracle: it plays a golden path and, at a chosen golden step,
injects one fault (garbage text, a ref that never existed, a stale ref, a click on a
heading or a disabled control, fill() on a control that takes no text, a bad value, an
early answer, an invented phone, the same useless click three times, an early done(), a
killed browser). The run is scored as the runner scores it — golden traces of the same
seed, ``score_trace`` (alignment + annotation) — and compared with what the fault must
produce: primary code, step, root-cause stage, false-success and not-executable flags.

``docs/make_failure_matrix.py`` runs every case here and writes the confusion matrix into
docs/failure-codes.md. The full matrix is ``slow``; a few cases run in the fast suite.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import webharness  # noqa: F401  (registers the WebEval/* ids)
from webharness.actions import ActionKind, parse_action
from webharness.diagnosis.failures import FailureAnnotation, FailureCode, RootCauseStage
from webharness.diagnosis.scoring import score_trace
from webharness.golden.oracle import OracleAgent, resolve_step
from webharness.golden.play import golden_traces, play_episode
from webharness.semantic import SemanticState
from webharness.spec.catalogue import task_names
from webharness.spec.task_spec import GoldenStep
from webharness.trace.io import load_trace
from webharness.trace.models import EpisodeTrace, TaskInstance

SEED = 3
UNKNOWN_REF = "e99999"
GARBAGE = "I think the next thing to do is to press the blue button on the right."
INVENTED_PHONE = "+44 7700 900123"
_HEADING = re.compile(r'- heading "[^"\n]*" \[level=1\][^\n]*\[ref=(e\d+)\]')
_MONEY = re.compile(r"\$[\d,]+")

C, S = FailureCode, RootCauseStage


class SuiteSetupError(RuntimeError):
    """A case that cannot inject its fault on this page (the case is wrong, not the annotator)."""


# --- the faulty agent --------------------------------------------------------------------


@dataclass
class FaultContext:
    """What a fault sees when it acts: the agent, the page now, the golden step it replaces."""

    agent: FaultyAgent
    obs: dict[str, Any]
    info: dict[str, Any]

    @property
    def state(self) -> SemanticState:
        return self.info["semantic_state"]

    @property
    def golden_step(self) -> GoldenStep:
        return self.agent.oracle.path.steps[self.agent.at - 1]

    @property
    def golden_action(self) -> Any:
        """The oracle's action for the replaced golden step, resolved on the page now."""
        return resolve_step(self.golden_step, self.state)

    @property
    def params(self) -> dict[str, Any]:
        return self.info["task"].params


Planned = str | Callable[[FaultContext], str]


@dataclass(frozen=True)
class Fault:
    """One fault: the actions that replace a golden step, then what the agent does.

    The fault is injected when the oracle is ready to play golden step ``at`` (after any
    waits for async content), or before the waits with ``eager``. ``then="stop"`` ends
    with done() once the planned actions are out; ``"oracle"`` lets the oracle play on
    from that golden step (or after it, with ``replaces``), ending with done() without
    waiting for success; ``"noop"`` idles until the run is truncated.
    The expected failure step is the first planned action's, or ``expect_golden``'s.
    """

    name: str
    code: FailureCode | None  # None: the run must pass (a recovered fault)
    stage: RootCauseStage | None
    plan: Callable[[FaultContext], list[Planned]]
    then: str = (
        "stop"  # "stop": done(); "oracle": the oracle plays on; "noop": noop() until truncated
    )
    replaces: bool = (
        False  # with then="oracle": the oracle skips the golden step the fault replaced
    )
    eager: bool = False  # inject before the oracle waits for the step's target (content on its way)
    expect_golden: Callable[[int], int] | None = (
        None  # golden step (from `at`) whose env step is expected
    )
    note: FailureCode | None = None  # a passing run must keep this step note at the fault step
    claims_success: bool = True  # the agent ends the run with done() or an answer


class FaultyAgent:
    """The oracle, with one fault injected at golden step ``at`` (1-based)."""

    name = "faulty"

    def __init__(
        self, fault: Fault, at: int, path_id: str | None = None, env: gym.Env | None = None
    ) -> None:
        self.fault, self.at, self.path_id, self.env = fault, at, path_id, env

    def reset(self, instance: TaskInstance) -> None:
        self.oracle = OracleAgent(self.path_id)
        self.oracle.reset(instance)
        self.states: list[SemanticState] = []
        self.golden_actions: list[str] = []
        self.env_step_of: dict[int, int] = {}  # golden step number -> env step index
        self.queue: list[Planned] = []
        self.fault_step: int | None = None
        self.step = 0

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        self.step += 1
        self.states.append(info["semantic_state"])
        ctx = FaultContext(self, obs, info)
        if self.queue:
            return _emit(self.queue.pop(0), ctx)
        if self.fault_step is not None and self.fault.then != "oracle":
            return "done()" if self.fault.then == "stop" else "noop()"
        steps = self.oracle.path.steps
        golden = len(self.golden_actions) + 1  # the golden step the oracle plays next
        if self.fault_step is None and golden == self.at and self.fault.eager:
            return self._inject(ctx, None)
        if (
            self.fault_step is not None
            and golden == len(steps)
            and steps[-1].action is ActionKind.DONE
        ):
            return "done()"  # the oracle would wait for success first: nothing to wait for
        action = self.oracle.act(obs, info)
        if parse_action(action).kind == ActionKind.WAIT.value:
            return action  # the step's target is not there yet (async content)
        self.golden_actions.append(action)
        self.env_step_of[golden] = self.step
        if self.fault_step is None and golden == self.at:
            return self._inject(ctx, action)
        return action

    def _inject(self, ctx: FaultContext, golden_action: str | None) -> str:
        """The fault's first action; ``golden_action`` is the oracle's, which the fault replaces
        (then dropped) or delays (then replayed once the fault is out, with ``then="oracle"``)."""
        self.fault_step = self.step
        first, *self.queue = self.fault.plan(ctx)
        if golden_action is not None and self.fault.then == "oracle" and not self.fault.replaces:
            self.queue.append(golden_action)
        return _emit(first, ctx)

    def expected_step(self) -> int | None:
        if self.fault_step is None:
            return None
        if self.fault.expect_golden is None:
            return self.fault_step
        return self.env_step_of.get(self.fault.expect_golden(self.at))


def _emit(item: Planned, ctx: FaultContext) -> str:
    return item if isinstance(item, str) else item(ctx)


# --- the faults ----------------------------------------------------------------------------


def _with_ref(action: Any, ref: str) -> str:
    return action.model_copy(update={"ref": ref}).dsl()


def garbage(ctx: FaultContext) -> list[Planned]:
    return [GARBAGE]


def unknown_ref(ctx: FaultContext) -> list[Planned]:
    action = ctx.golden_action
    if action is None or action.ref_target is None:
        return [f'click("{UNKNOWN_REF}")']
    return [_with_ref(action, UNKNOWN_REF)]


def stale_ref(ctx: FaultContext) -> list[Planned]:
    """The golden action with a ref from an earlier observation whose element has gone.

    In order: the golden target as an earlier observation named it; the previous golden
    action's target; an element of the same role seen earlier; any element seen earlier.
    """
    now = {e.ref for e in ctx.state.elements}
    earlier = ctx.agent.states[:-1]
    action = ctx.golden_action
    for state in reversed(earlier):
        old = resolve_step(ctx.golden_step, state)
        if old is not None and old.ref_target and old.ref_target not in now:
            return [old.dsl()]
    done = ctx.agent.golden_actions  # the oracle's actions so far, this golden step's last
    previous = parse_action(done[-2]) if len(done) > 1 else None
    if previous is not None and previous.ref_target and previous.ref_target not in now:
        return [previous.dsl()]
    gone = [e for s in earlier for e in s.elements if e.ref not in now]
    role = ctx.golden_step.target.role if ctx.golden_step.target else None
    same_role = [e for e in gone if e.role == role]
    if action is not None and action.ref_target and same_role:
        return [_with_ref(action, same_role[0].ref)]
    if gone:
        return [f'click("{gone[0].ref}")']
    raise SuiteSetupError(f"no element has gone from the page before golden step {ctx.agent.at}")


def heading_ref(ctx: FaultContext) -> str:
    found = _HEADING.search(ctx.obs["axtree"])
    if found is None:
        raise SuiteSetupError("no level-1 heading on the page")
    return found.group(1)


def click_heading(ctx: FaultContext) -> list[Planned]:
    return [f'click("{heading_ref(ctx)}")']


def click_disabled(ctx: FaultContext) -> list[Planned]:
    disabled = [e for e in ctx.state.elements if e.disabled and e.in_viewport]
    if not disabled:
        raise SuiteSetupError(f"no disabled control on the page before golden step {ctx.agent.at}")
    return [f'click("{disabled[0].ref}")']


def repeat_heading(ctx: FaultContext) -> list[Planned]:
    return click_heading(ctx) * 3


def fill_control(ctx: FaultContext) -> list[Planned]:
    """fill() on the control the golden step selects, checks or opens (it takes no text)."""
    step, action = ctx.golden_step, ctx.golden_action
    if action is None or action.ref_target is None or step.target is None:
        raise SuiteSetupError(f"golden step {ctx.agent.at} has no target to fill")
    text = (
        step.value
        if step.action is ActionKind.SELECT_OPTION or step.target.role == "combobox"
        else step.target.name
    )
    if step.action is ActionKind.CLICK and step.target.role == "combobox":
        text = ctx.params.get("assignee", step.target.name)
    return [f"fill({action.ref_target!r}, {str(text)!r})"]


def stop(ctx: FaultContext) -> list[Planned]:
    return ["done()"]


def answer_done(ctx: FaultContext) -> list[Planned]:
    return ['send_msg_to_user("done")']


def early_answer(ctx: FaultContext) -> list[Planned]:
    """Answer with the figure the page shows now, while the fresh report is on its way."""
    figures = _MONEY.findall(ctx.state.text)
    if not figures:
        raise SuiteSetupError("no figure on the page to answer with")
    metric = ctx.params.get("metric_lc", "total")
    return [f"send_msg_to_user({f'The {metric} is {figures[0]}.'!r})"]


def invent_phone(ctx: FaultContext) -> list[Planned]:
    """Skip asking: type a made-up phone, place the order."""

    def place(c: FaultContext) -> str:
        return f'click("{_ref(c.state, "button", "Place order")}")'

    return [f'fill("{_ref(ctx.state, "textbox", "Delivery phone")}", "{INVENTED_PHONE}")', place]


def bad_value(text: str) -> Callable[[FaultContext], list[Planned]]:
    """The golden fill, with a value the app rejects."""

    def plan(ctx: FaultContext) -> list[Planned]:
        action = ctx.golden_action
        if action is None or action.kind != ActionKind.FILL.value:
            raise SuiteSetupError(f"golden step {ctx.agent.at} is not a fill")
        return [action.model_copy(update={"text": text}).dsl()]

    return plan


def kill_browser(ctx: FaultContext) -> list[Planned]:
    """Close the browser under the env, then send the golden action into it."""
    if ctx.agent.env is None:
        raise SuiteSetupError("the runtime fault needs the env")
    host = ctx.agent.env.unwrapped.runtime.host  # type: ignore[attr-defined]
    browser = host.run(host.browser(), 30)
    host.run(browser.close(), 30)
    action = ctx.golden_action
    return [action.dsl() if action is not None else 'click("e1")']


def _ref(state: SemanticState, role: str, name: str) -> str:
    found = state.find(role, name)
    if not found:
        raise SuiteSetupError(f"no {role} {name!r} on the page")
    return found[0].ref


def _previous(at: int) -> int:
    return at - 1


FAULTS: dict[str, Fault] = {
    f.name: f
    for f in [
        Fault("garbage_text", C.MODEL_PROTOCOL, S.EXECUTION, garbage),
        Fault("unknown_ref", C.OBSERVATION_MISS, S.PERCEPTION, unknown_ref),
        Fault("stale_ref", C.STALE_INDEX, S.PERCEPTION, stale_ref),
        # the same earlier ref, where the page hid its element instead of replacing it
        Fault("hidden_ref", C.OBSERVATION_MISS, S.PERCEPTION, stale_ref),
        Fault("click_disabled", C.ACTION_NO_EFFECT, S.PERCEPTION, click_disabled),
        Fault("click_heading", C.ACTION_NO_EFFECT, S.PERCEPTION, click_heading),
        Fault("fill_control", C.UNSUPPORTED_CONTROL, S.EXECUTION, fill_control),
        # the golden path submits a value the app rejects; the agent stops instead of fixing it
        Fault("never_fix", C.VALIDATION_ERROR, S.UNDERSTANDING, stop, expect_golden=_previous),
        Fault("early_answer", C.WAITING_TIMEOUT, S.PERCEPTION, early_answer, eager=True),
        Fault("invent_phone", C.USER_INPUT_REQUIRED, S.DECISION, invent_phone),
        Fault("repeat_heading", C.REPEATED_ACTION, S.DECISION, repeat_heading),
        Fault("stop_halfway", C.TASK_INCOMPLETE, S.DECISION, stop),
        Fault("quit_done", C.TASK_INCOMPLETE, S.DECISION, stop),
        Fault("quit_message", C.TASK_INCOMPLETE, S.DECISION, answer_done),
        Fault(
            "idle_out",
            C.TASK_INCOMPLETE,
            S.DECISION,
            lambda ctx: ["noop()"],
            then="noop",
            claims_success=False,
        ),
        Fault("kill_browser", C.RUNTIME_ERROR, S.ENVIRONMENT, kill_browser),
        # recovered faults: the run passes and keeps a note of the fault
        Fault("garbage_then_recover", None, None, garbage, then="oracle", note=C.MODEL_PROTOCOL),
        Fault(
            "unknown_ref_then_recover",
            None,
            None,
            unknown_ref,
            then="oracle",
            note=C.OBSERVATION_MISS,
        ),
    ]
}


def bad_value_fault(name: str, text: str, submit_offset: int) -> Fault:
    """A rejected value typed at golden step ``at``, submitted ``submit_offset`` steps later."""
    return Fault(
        name,
        C.VALIDATION_ERROR,
        S.UNDERSTANDING,
        bad_value(text),
        then="oracle",
        replaces=True,
        expect_golden=lambda at: at + submit_offset,
    )


# --- the cases -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One faulty run: a scenario, a golden path, a fault and the golden step it replaces."""

    scenario: str
    fault: Fault
    at: int
    path: str | None = None

    @property
    def id(self) -> str:
        return f"{self.scenario}-{self.fault.name}@{self.at}" + (
            f"-{self.path}" if self.path else ""
        )


def _golden_length(scenario: str, path: str | None = None) -> int:
    spec = webharness.get_task(scenario)
    chosen = next((p for p in spec.golden_paths if p.id == path), spec.golden_paths[0])
    return len(chosen.steps)


def _halfway(scenario: str) -> int:
    return _golden_length(scenario) // 2 + 1


def all_cases() -> list[Case]:
    """Every fault on every scenario where it can arise, grouped by scenario."""
    f = FAULTS
    every = task_names()
    cases: list[Case] = []
    for name in every:
        half = _halfway(name)
        cases += [
            Case(name, f["garbage_text"], half),
            Case(name, f["unknown_ref"], half),
            Case(name, f["click_heading"], 1),
            Case(name, f["repeat_heading"], 1),
            Case(name, f["stop_halfway"], half),
            Case(name, f["quit_done"], 1),
            Case(name, f["quit_message"], 1),
            Case(name, f["kill_browser"], half),
        ]
    # stale refs: where an element the agent saw is replaced (re-render or navigation)
    cases += [
        Case("dynamic", f["stale_ref"], 2),
        Case("navigate", f["stale_ref"], 2, "links"),
        Case("shop", f["stale_ref"], 3),
        Case("combobox", f["stale_ref"], 3, "type-to-filter"),
    ]
    # ... and where it was hidden instead (a closed listbox, the other tab's panel, the
    # step of a sign-in form that has moved on): not on the page
    cases += [
        Case("combobox", f["hidden_ref"], 3, "click-option"),
        Case("login", f["hidden_ref"], 2, "phone-code"),
        Case("login", f["hidden_ref"], 4, "phone-code"),
    ]
    # disabled controls the page shows
    # (async's only disabled control is the "Running…" button of a report on its way: a
    # click on it and then done() is ending while the page loads, which waiting_timeout is)
    cases += [
        Case("dynamic", f["click_disabled"], 1),
        Case("search", f["click_disabled"], 1),
        Case("shop", f["click_disabled"], 4),
    ]
    # fill() on a select, a radio or the custom combobox
    cases += [
        Case("combobox", f["fill_control"], 1, "click-option"),
        Case("dynamic", f["fill_control"], 1),
        Case("form", f["fill_control"], 5, "save-button"),
        Case("search", f["fill_control"], 2),
        Case("stats", f["fill_control"], 1),
        Case("validation", f["fill_control"], 5),
        Case("shop", f["fill_control"], 4),
        Case("clarify", f["fill_control"], 5),
    ]
    # rejected input, never fixed
    cases += [
        Case("validation", f["never_fix"], 8, "fix-and-resubmit"),
        Case("validation", f["never_fix"], 8, "resubmit-with-enter"),
        Case("clarify", f["never_fix"], 7, "submit-then-ask"),
        # the browser flags a malformed email as soon as it is typed: the fill is the step
        Case("form", bad_value_fault("bad_email", "thea at example", 0), 3, "save-button"),
        Case("shop", bad_value_fault("bad_postcode", "#!", 3), 13, "search-button-via-cart"),
        Case(
            "login", bad_value_fault("wrong_password", "not-my-password-1", 1), 2, "email-password"
        ),
    ]
    cases += [Case("async", f["early_answer"], 2)]
    cases += [Case(name, f["idle_out"], 1) for name in ("form", "stats")]
    cases += [Case("clarify", f["invent_phone"], 6, "ask-then-fill")]
    cases += [
        Case(name, f["garbage_then_recover"], 1) for name in ("form", "validation", "dynamic")
    ]
    cases += [Case(name, f["unknown_ref_then_recover"], 1) for name in ("form", "combobox", "shop")]
    order = {name: i for i, name in enumerate(every)}
    return sorted(cases, key=lambda c: order[c.scenario])


FAST_CASES = [
    "form-garbage_text@5",
    "form-click_heading@1",
    "form-stop_halfway@5",
    "form-quit_message@1",
]


# --- running a case ------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What the diagnosis of a run says (or must say)."""

    code: FailureCode | None
    step: int | None
    stage: RootCauseStage | None
    false_success: bool
    not_executable: bool

    @classmethod
    def of(cls, failure: FailureAnnotation) -> Verdict:
        return cls(
            failure.code, failure.step, failure.stage, failure.false_success, failure.not_executable
        )


@dataclass
class CaseResult:
    case: Case
    expected: Verdict
    annotated: Verdict
    failure: FailureAnnotation
    trace: EpisodeTrace
    fault_step: int | None

    @property
    def notes_ok(self) -> bool:
        """A passing run keeps the note of the fault it recovered from."""
        note = self.case.fault.note
        return note is None or (note, self.fault_step) in {
            (n.code, n.step) for n in self.failure.step_notes
        }

    @property
    def ok(self) -> bool:
        return self.expected == self.annotated and self.notes_ok


def expected_verdict(case: Case, agent: FaultyAgent) -> Verdict:
    fault = case.fault
    if fault.code is None:
        return Verdict(None, None, None, False, False)
    return Verdict(
        code=fault.code,
        step=agent.expected_step(),
        stage=fault.stage,
        false_success=fault.claims_success and fault.code is not C.RUNTIME_ERROR,
        not_executable=fault.code is C.RUNTIME_ERROR,
    )


class Bench:
    """One env at a time (each holds a browser), and the golden traces per scenario and seed."""

    def __init__(self, seed: int = SEED) -> None:
        self.seed = seed
        self._env: tuple[str, gym.Env] | None = None
        self._goldens: dict[tuple[str, int], list[EpisodeTrace]] = {}

    def env(self, scenario: str) -> gym.Env:
        if self._env is None or self._env[0] != scenario:
            self.close()
            self._env = (scenario, gym.make(f"WebEval/{scenario}-v0", obs_mode="text"))
        return self._env[1]

    def goldens(self, scenario: str, seed: int | None = None) -> list[EpisodeTrace]:
        """The oracle's run of every golden path (what the runner scores against)."""
        key = (scenario, self.seed if seed is None else seed)
        if key not in self._goldens:
            self._goldens[key] = golden_traces(self.env(scenario), key[1], screenshots=False)
        return self._goldens[key]

    def run(self, case: Case) -> CaseResult:
        goldens = self.goldens(case.scenario)
        env = self.env(case.scenario)
        agent = FaultyAgent(case.fault, case.at, case.path, env)
        trace = play_episode(env, agent, self.seed, screenshots=False)
        failure = score_trace(trace, goldens).failure
        return CaseResult(
            case,
            expected_verdict(case, agent),
            Verdict.of(failure),
            failure,
            trace,
            agent.fault_step,
        )

    def close(self) -> None:
        if self._env is not None:
            self._env[1].close()
            self._env = None


# --- the matrix ----------------------------------------------------------------------------


def _label(code: FailureCode | None) -> str:
    return code.value if code is not None else "none (passed)"


def _cell(expected: Any, annotated: Any, show: Callable[[Any], str]) -> str:
    return "✓" if expected == annotated else f"**{show(annotated)}**"


def matrix_markdown(results: list[CaseResult]) -> str:
    """Expected code × annotated code counts, then every case with its step/stage agreement."""
    counts = Counter((r.expected.code, r.annotated.code) for r in results)
    used = [c for c in (None, *FailureCode) if any(c in pair for pair in counts)]
    lines = [
        "| expected ↓ \\ annotated → | "
        + " | ".join(f"`{_label(c)}`" for c in used)
        + " | cases |",
        "| --- |" + " ---: |" * (len(used) + 1),
    ]
    for row in used:
        total = sum(counts[(row, col)] for col in used)
        if total:
            cells = [str(counts[(row, col)]) if counts[(row, col)] else "·" for col in used]
            lines.append(f"| `{_label(row)}` | " + " | ".join(cells) + f" | {total} |")
    fields = ("code", "step", "stage", "false_success", "not_executable")
    agree = {
        k: sum(getattr(r.expected, k) == getattr(r.annotated, k) for r in results) for k in fields
    }
    n = len(results)
    lines += [
        "",
        "Agreement over the "
        + f"{n} cases: "
        + ", ".join(f"{k} {v}/{n}" for k, v in agree.items())
        + f"; notes of recovered faults {sum(r.notes_ok for r in results)}/{n}; "
        + f"**all of them {sum(r.ok for r in results)}/{n}**.",
        "",
    ]
    lines += [
        "| case | golden path | expected: code @ step, stage | code | step | stage "
        "| false success | not executable |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        e, a = r.expected, r.annotated
        stage = e.stage.value if e.stage else "—"
        lines.append(
            f"| `{r.case.id.split('@')[0]}@{r.case.at}` | {r.case.path or 'first'} "
            f"| {_label(e.code)} @ {e.step if e.step is not None else '—'}, {stage} "
            f"| {_cell(e.code, a.code, _label)} | {_cell(e.step, a.step, str)} "
            f"| {_cell(e.stage, a.stage, lambda s: s.value if s else '—')} "
            f"| {_cell(e.false_success, a.false_success, str)} "
            f"| {_cell(e.not_executable, a.not_executable, str)} |"
        )
    return "\n".join(lines)


# --- the tests -----------------------------------------------------------------------------


CASES = {c.id: c for c in all_cases()}
QUITS = ("quit_done", "quit_message")


def _one_per_fault() -> set[str]:
    """The first case of every fault (so every code) and every scenario's first case: what
    the test suite runs. The whole matrix (130 cases, ~8 min) is run and recorded by
    docs/make_failure_matrix.py, which keeps the suite inside its time budget."""
    chosen: dict[str, str] = {}
    for case_id, case in CASES.items():
        chosen.setdefault(case.fault.name, case_id)
        chosen.setdefault("scenario:" + case_id.split("-")[0], case_id)
    return set(chosen.values())


IN_SUITE = _one_per_fault() | set(FAST_CASES)


@pytest.fixture(scope="module")
def bench(browser: None) -> Iterator[Bench]:
    b = Bench()
    yield b
    b.close()


def _check(result: CaseResult) -> None:
    assert result.annotated == result.expected, (result.failure.message, result.failure.step_notes)
    assert result.notes_ok, result.failure.step_notes


def _slow_unless(fast: bool) -> list[pytest.MarkDecorator]:
    return [] if fast else [pytest.mark.slow]


@pytest.mark.parametrize(
    "case_id",
    [
        pytest.param(i, marks=_slow_unless(i in FAST_CASES))
        for i in sorted(IN_SUITE)
        if CASES[i].fault.name not in QUITS
    ],
)
def test_a_faulty_agent_gets_the_right_code_step_and_stage(bench: Bench, case_id: str) -> None:
    _check(bench.run(CASES[case_id]))


@pytest.mark.parametrize(
    "case_id",
    [
        pytest.param(i, marks=_slow_unless(i in FAST_CASES))
        for i in CASES
        if CASES[i].fault.name in QUITS
    ],
)
def test_ending_at_once_claiming_success_is_flagged_false_success(
    bench: Bench, case_id: str
) -> None:
    result = bench.run(CASES[case_id])
    assert result.failure.false_success and not result.failure.passed
    _check(result)


ORACLE_SEEDS = (SEED,)  # the scenario tests play seeds 0-19 for success; here, the diagnosis


@pytest.mark.parametrize(
    "scenario,seed",
    [
        pytest.param(
            name, seed, marks=_slow_unless((name, seed) in {("form", SEED), ("validation", SEED)})
        )
        for name in task_names()
        for seed in ORACLE_SEEDS
    ],
)
def test_the_oracle_runs_get_no_failure_code(bench: Bench, scenario: str, seed: int) -> None:
    goldens = bench.goldens(scenario, seed)  # one oracle run per golden path
    for run in goldens:
        failure = score_trace(run, goldens).failure
        assert failure.passed and failure.code is None and failure.stage is None, (
            run.golden_path,
            failure.message,
        )
        assert not (failure.false_success or failure.false_give_up or failure.not_executable)
        # the only notes an oracle run may carry are the rejections it recovers from
        notes = [(n.step, n.code) for n in failure.step_notes]
        assert all(code is C.VALIDATION_ERROR for _, code in notes), (run.golden_path, notes)
        if scenario == "validation":
            rejected = next(s.index for s in run.steps if any(e.invalid for e in s.state.elements))
            assert notes == [(rejected, C.VALIDATION_ERROR)], run.golden_path


# --- live wrappers and offline re-scoring agree -------------------------------------------


LIVE_CASES = ["form-garbage_text@5", "form-bad_email@3-save-button", "form-kill_browser@5"]
LIVE_SLOW = [
    "form-click_heading@1",
    "validation-never_fix@8-fix-and-resubmit",
    "async-early_answer@2",
    "clarify-invent_phone@6-ask-then-fill",
    "dynamic-stale_ref@2",
    "richtext-repeat_heading@1",
    "login-hidden_ref@2-phone-code",
    "shop-unknown_ref_then_recover@1",
]


@pytest.fixture(scope="module")
def live_stack(
    browser: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[str], gym.Env]]:
    """The diagnosis stack users put on an env, one per scenario (each records its own goldens)."""
    from webharness.wrappers import FailureAnnotation as Annotate
    from webharness.wrappers import GoldenTraceAlignment, RecordTrace

    stacks: dict[str, gym.Env] = {}

    def stack(scenario: str) -> gym.Env:
        if scenario not in stacks:
            for old in stacks.values():  # one live browser pair at a time
                old.close()
            stacks.clear()
            folder = tmp_path_factory.mktemp(scenario)
            stacks[scenario] = Annotate(
                GoldenTraceAlignment(
                    RecordTrace(
                        gym.make(f"WebEval/{scenario}-v0", obs_mode="text"),
                        folder,
                        screenshots=False,
                    )
                )
            )
        return stacks[scenario]

    yield stack
    for env in stacks.values():
        env.close()


def play_live(env: gym.Env, agent: FaultyAgent, seed: int) -> dict[str, Any]:
    """Play through a wrapper stack; the last step's info (with ``failure`` and ``trace_dir``)."""
    obs, info = env.reset(seed=seed)
    agent.reset(info["task"])
    while True:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            return info


@pytest.mark.parametrize(
    "case_id",
    [pytest.param(i, marks=_slow_unless(i in LIVE_CASES)) for i in LIVE_CASES + LIVE_SLOW],
)
def test_rescoring_a_saved_trace_offline_gives_the_live_diagnosis(
    bench: Bench, live_stack: Callable[[str], gym.Env], case_id: str
) -> None:
    case = CASES[case_id]
    live = live_stack(case.scenario)
    agent = FaultyAgent(case.fault, case.at, case.path, live)
    info = play_live(live, agent, SEED)
    offline = score_trace(load_trace(info["trace_dir"]), bench.goldens(case.scenario))
    assert offline.failure == info["failure"]
    assert offline.alignment == info["alignment"]
    assert Verdict.of(info["failure"]) == expected_verdict(case, agent)


class CaseAgent(FaultyAgent):
    """A suite case as a runner agent: ``tests.diagnosis.test_failure_suite:CaseAgent``
    with ``case=<id>``."""

    def __init__(self, case: str) -> None:
        chosen = CASES[case]
        super().__init__(chosen.fault, chosen.at, chosen.path)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case_id", ["form-click_heading@1", "validation-never_fix@8-fix-and-resubmit"]
)
def test_webharness_score_gives_the_runner_s_diagnosis(
    browser: None, tmp_path: Path, case_id: str
) -> None:
    from webharness.cli import main
    from webharness.reporting.records import read_attempts
    from webharness.runner import RunConfig, RunFolder, prepare_run, run_jobs

    case = CASES[case_id]
    config = RunConfig(
        agents=["tests.diagnosis.test_failure_suite:CaseAgent"],
        tasks=[case.scenario],
        seeds=[SEED],
        obs_mode="text",
        screenshots=False,
        agent_options={"case": case_id},
    )
    run_jobs(prepare_run(config, tmp_path, resume=False), config, tmp_path)
    assert main(["score", str(tmp_path)]) == 0
    fields = (
        "passed",
        "false_success",
        "not_executable",
        "failure_code",
        "root_cause",
        "failure_step",
        "first_divergence_step",
        "progress_rate",
    )
    (live,) = read_attempts(RunFolder(tmp_path).results)
    (again,) = read_attempts(RunFolder(tmp_path).rescored)
    assert {f: getattr(again, f) for f in fields} == {f: getattr(live, f) for f in fields}
    assert (live.failure_code, live.root_cause) == (case.fault.code.value, case.fault.stage.value)
