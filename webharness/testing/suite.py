"""The faulty-agent suite: cases, the verdict each must get, and a ``Bench`` to play them.

A case is a scenario, a golden path, a fault and the golden step it replaces; the bench
plays and scores it.

A case is scored exactly as the runner scores a run: ``score_trace`` against the golden
traces of the same seed. ``docs/make_failure_matrix.py`` plays every case and writes the
confusion matrix (``webharness.testing.matrix``) into docs/failure-codes.md.

>>> bench = Bench()                                          # doctest: +SKIP
>>> bench.run(all_cases()[0]).ok                             # doctest: +SKIP
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym

import webharness
from webharness.diagnosis.alignment import Alignment
from webharness.diagnosis.failures import FailureCode, FailureReport, Stage
from webharness.diagnosis.scoring import score_trace
from webharness.golden.cached import DEFAULT_CACHE, CacheChoice, CachedGoldens
from webharness.golden.play import play_episode
from webharness.spec.catalogue import full_env_id, task_names
from webharness.testing.fault_agent import Fault, FaultyAgent
from webharness.testing.faults import FAULTS, bad_value_fault
from webharness.trace.models import EpisodeTrace

__all__ = [
    "SEED",
    "Bench",
    "Case",
    "CaseAgent",
    "CaseResult",
    "Verdict",
    "all_cases",
    "expected_verdict",
    "multi_path_scenarios",
]

SEED = 3
C = FailureCode


@dataclass(frozen=True)
class Case:
    """One faulty run: a scenario, a golden path, a fault and the golden step it replaces.

    ``scenario`` is a built-in's name (``form``) or any env id ``get_task`` knows
    (``Library/delete_book-v0``, a registered task folder's).
    """

    scenario: str
    fault: Fault
    at: int
    path: str | None = None

    @property
    def id(self) -> str:
        """``<scenario>-<fault>@<at>[-<path>]``."""
        suffix = f"-{self.path}" if self.path else ""
        return f"{self.scenario}-{self.fault.name}@{self.at}{suffix}"

    @property
    def path_id(self) -> str:
        """The golden path the faulty agent plays (the first when none is named)."""
        return self.path or webharness.get_task(self.scenario).golden_paths[0].id


def _golden_length(scenario: str) -> int:
    return len(webharness.get_task(scenario).golden_paths[0].steps)


def multi_path_scenarios() -> list[str]:
    """The scenarios with more than one golden path."""
    return [n for n in task_names() if len(webharness.get_task(n).golden_paths) > 1]


def all_cases() -> list[Case]:
    """Every fault on every scenario where it can arise, grouped by scenario."""
    f, every = FAULTS, task_names()
    cases: list[Case] = []
    for name in every:
        half = _golden_length(name) // 2 + 1
        cases += [Case(name, f[k], half) for k in ("garbage_text", "unknown_ref")]
        cases += [Case(name, f[k], 1) for k in ("click_heading", "repeat_heading")]
        cases += [Case(name, f["stop_halfway"], half)]
        cases += [Case(name, f[k], 1) for k in ("quit_done", "quit_message")]
        cases += [Case(name, f["kill_browser"], half)]
    cases += _page_specific_cases()
    cases += _new_cases()
    order = {name: i for i, name in enumerate(every)}
    return sorted(cases, key=lambda c: order[c.scenario])


def _page_specific_cases() -> list[Case]:
    """Faults that need something of the page.

    A replaced or hidden element, a disabled control, a control that takes no text, a
    check the app makes.
    """
    f = FAULTS
    return [
        # stale refs: where an element the agent saw is replaced (re-render or navigation)
        Case("dynamic", f["stale_ref"], 2),
        Case("navigate", f["stale_ref"], 2, "links"),
        Case("shop", f["stale_ref"], 3),
        Case("combobox", f["stale_ref"], 3, "type-to-filter"),
        # ... and where it was hidden instead: not on the page
        Case("combobox", f["hidden_ref"], 3, "click-option"),
        Case("login", f["hidden_ref"], 2, "phone-code"),
        Case("login", f["hidden_ref"], 4, "phone-code"),
        # disabled controls the page shows (async's only one is the "Running…" button of
        # a report on its way: clicking it and stopping is waiting_timeout)
        Case("dynamic", f["click_disabled"], 1),
        Case("search", f["click_disabled"], 1),
        Case("shop", f["click_disabled"], 4),
        # fill() on a select, a radio or the custom combobox
        Case("combobox", f["fill_control"], 1, "click-option"),
        Case("dynamic", f["fill_control"], 1),
        Case("form", f["fill_control"], 5, "save-button"),
        Case("search", f["fill_control"], 2),
        Case("stats", f["fill_control"], 1),
        Case("validation", f["fill_control"], 5),
        Case("shop", f["fill_control"], 4),
        Case("clarify", f["fill_control"], 5),
        # rejected input, never fixed
        Case("validation", f["never_fix"], 8, "fix-and-resubmit"),
        Case("validation", f["never_fix"], 8, "resubmit-with-enter"),
        Case("clarify", f["never_fix"], 7, "submit-then-ask"),
        # the browser flags a malformed email as soon as it is typed: the fill is the step
        Case("form", bad_value_fault("bad_email", "thea at example", 0), 3, "save-button"),
        Case("shop", bad_value_fault("bad_postcode", "#!", 3), 13, "search-button-via-cart"),
        Case(
            "login", bad_value_fault("wrong_password", "not-my-password-1", 1), 2, "email-password"
        ),
        Case("async", f["early_answer"], 2),
        Case("form", f["idle_out"], 1),
        Case("stats", f["idle_out"], 1),
        Case("clarify", f["invent_phone"], 6, "ask-then-fill"),
        *[Case(n, f["garbage_then_recover"], 1) for n in ("form", "validation", "dynamic")],
        *[Case(n, f["unknown_ref_then_recover"], 1) for n in ("form", "combobox", "shop")],
    ]


def _new_cases() -> list[Case]:
    """The fault kinds of issue 18.

    Refused actions under a popup, detours before and after the first key step of every
    multi-path task, the same rejected value resubmitted, stopping after a recovered
    rejection, saving unchanged data, a vague question.
    """
    f = FAULTS
    cases = [
        Case("form", f["popup_refused"], 2, "save-button"),
        Case("validation", f["popup_refused"], 2, "fix-and-resubmit"),
        Case("clarify", f["popup_refused"], 2, "ask-then-fill"),
        Case("login", f["popup_refused"], 1, "email-password"),
        Case("validation", f["resubmit_same"], 8, "fix-and-resubmit"),
        Case("validation", f["resubmit_same"], 8, "resubmit-with-enter"),
        Case("clarify", f["resubmit_same"], 8, "submit-then-ask"),
        Case("validation", f["stop_after_fix"], 9, "fix-and-resubmit"),
        Case("validation", f["stop_after_fix"], 9, "resubmit-with-enter"),
        Case("clarify", f["stop_after_fix"], 9, "submit-then-ask"),
        Case("combobox", f["save_unchanged"], 1, "click-option"),
        Case("combobox", f["save_unchanged"], 1, "type-to-filter"),
        Case("clarify", f["vague_then_invent"], 6, "ask-then-fill"),
        Case("navigate", f["wrong_choice"], 2, "links"),
        Case("navigate", f["wrong_choice"], 3, "links"),
        Case("dynamic", f["wrong_choice"], 2, "row-button"),
    ]
    for name in multi_path_scenarios():
        paths = [p.id for p in webharness.get_task(name).golden_paths]
        cases += [
            Case(name, f["detour"], at, path)
            for path in paths
            for at in (1, 2)
            if (name, path, at) not in _NO_HARMLESS_DETOUR
        ]
    return cases


# Where the only way off the path and back is not harmless: with navigate's menu open
# (after its first key step) the page offers only links, and going back closes the menu.
_NO_HARMLESS_DETOUR = {("navigate", "menu", 2)}


@dataclass(frozen=True)
class Verdict:
    """What the diagnosis of a run says (or must say)."""

    code: FailureCode | None
    step: int | None
    stage: Stage | None
    false_success: bool
    not_executable: bool

    @classmethod
    def of(cls, failure: FailureReport) -> Verdict:
        """The verdict of an annotation."""
        return cls(
            failure.code, failure.step, failure.stage, failure.false_success, failure.not_executable
        )


@dataclass
class CaseResult:
    """A played case: what was expected, what the diagnosis said, and the run."""

    case: Case
    expected: Verdict
    annotated: Verdict
    failure: FailureReport
    alignment: Alignment | None
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
    def divergence_ok(self) -> bool | None:
        """Whether the alignment's first divergence is the fault step on the path played.

        For faults that must diverge where injected; None for other cases.
        """
        if not self.case.fault.diverges:
            return None
        a = self.alignment
        return (
            a is not None
            and a.golden_path == self.case.path_id
            and a.first_divergence_step == self.fault_step
        )

    @property
    def decisive_ok(self) -> bool | None:
        """Whether the alignment's decisive step is where the fault says it is.

        For faults that say where the point of no return is: the fault step (a wrong
        choice), or none (a harmless detour, a stop with nothing broken). None for other
        cases.
        """
        expected = self.case.fault.decisive
        if expected is None:
            return None
        found = self.alignment.decisive_step if self.alignment is not None else None
        return found == (self.fault_step if expected else None)

    @property
    def ok(self) -> bool:
        """Everything agrees: verdict, recovered-fault note, divergence and decisive step."""
        return (
            self.expected == self.annotated
            and self.notes_ok
            and self.divergence_ok is not False
            and self.decisive_ok is not False
        )


def expected_verdict(case: Case, agent: FaultyAgent) -> Verdict:
    """The verdict the fault must produce on the run ``agent`` played."""
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
    """Plays and scores cases: one env at a time (each holds a browser).

    The golden traces per scenario and seed are kept in the golden-trace cache
    ``golden_cache``, as ``GoldenTraceAlignment`` keeps them: by default the runner's;
    None records them each time.
    """

    def __init__(self, seed: int = SEED, golden_cache: CacheChoice = DEFAULT_CACHE) -> None:
        self.seed = seed
        self._env: tuple[str, gym.Env] | None = None
        self._goldens: dict[tuple[str, int], list[EpisodeTrace]] = {}
        self._cached = CachedGoldens(golden_cache)

    def env(self, scenario: str) -> gym.Env:
        """The scenario's env (text observations), closing the previous scenario's."""
        if self._env is None or self._env[0] != scenario:
            self.close()
            self._env = (scenario, gym.make(full_env_id(scenario), obs_mode="text"))
        return self._env[1]

    def goldens(self, scenario: str, seed: int | None = None) -> list[EpisodeTrace]:
        """The oracle's run of every golden path (what the runner scores against)."""
        key = (scenario, self.seed if seed is None else seed)
        if key not in self._goldens:
            env: Any = self.env(scenario).unwrapped
            self._goldens[key] = self._cached.traces(
                env.task_spec, key[1], env.viewport, lambda: self.env(scenario)
            )
        return self._goldens[key]

    def run(self, case: Case) -> CaseResult:
        """Play the case and score it as the runner does."""
        goldens = self.goldens(case.scenario)
        env = self.env(case.scenario)
        agent = FaultyAgent(case.fault, case.at, case.path, env)
        with agent.hooked(env):
            trace = play_episode(env, agent, self.seed, screenshots=False)
        score = score_trace(trace, goldens, spec=env.unwrapped.task_spec)  # type: ignore[attr-defined]
        return CaseResult(
            case,
            expected_verdict(case, agent),
            Verdict.of(score.failure),
            score.failure,
            score.alignment,
            trace,
            agent.fault_step,
        )

    def close(self) -> None:
        """Close the env held, if any."""
        if self._env is not None:
            self._env[1].close()
            self._env = None


class CaseAgent(FaultyAgent):
    """A suite case as a runner agent: ``webharness.testing:CaseAgent`` with ``case=<id>``."""

    def __init__(self, case: str) -> None:
        chosen = {c.id: c for c in all_cases()}[case]
        super().__init__(chosen.fault, chosen.at, chosen.path)
