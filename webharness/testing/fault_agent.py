"""The fault-injecting agent: the oracle, with one fault injected at a chosen golden step.

A ``Fault`` says what replaces the golden step (a plan of actions, each a string or a
function of the page at the time) and what the agent does after it: stop with
``done()``, let the oracle play on, or idle until truncated. ``FaultyAgent`` plays a
golden path with the oracle and injects the fault; the run can then be scored and
compared with what the fault must produce (``webharness.testing.suite``).

>>> from webharness.testing import FAULTS, FaultyAgent
>>> agent = FaultyAgent(FAULTS["garbage_text"], at=2)        # doctest: +SKIP
>>> trace = play_episode(env, agent, seed=3)                 # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from webharness.actions import ActionKind, parse_action
from webharness.diagnosis.failures import FailureCode, Stage
from webharness.episode.hooks import HookFactory
from webharness.golden.oracle import OracleAgent, resolve_step
from webharness.semantic import SemanticState
from webharness.spec.task_spec import GoldenStep, TaskSpec
from webharness.trace.models import TaskInstance

__all__ = ["Fault", "FaultContext", "FaultSetupError", "FaultyAgent", "Planned"]


class FaultSetupError(RuntimeError):
    """A fault that cannot be injected on this page (the case is wrong, not the annotator)."""


@dataclass
class FaultContext:
    """What a fault sees when it acts: the agent, the page now, the golden step it replaces."""

    agent: FaultyAgent
    obs: dict[str, Any]
    info: dict[str, Any]

    @property
    def state(self) -> SemanticState:
        """The semantic state of the page now."""
        return self.info["semantic_state"]

    @property
    def golden_step(self) -> GoldenStep:
        """The golden step the fault replaces."""
        return self.agent.oracle.path.steps[self.agent.at - 1]

    @property
    def golden_action(self) -> Any:
        """The oracle's action for the replaced golden step, resolved on the page now."""
        return resolve_step(self.golden_step, self.state)

    def resolve(self, number: int) -> Any:
        """Golden step ``number`` (1-based) resolved on the page now; None when it cannot be."""
        steps = self.agent.oracle.path.steps
        return resolve_step(steps[number - 1], self.state) if number <= len(steps) else None

    @property
    def params(self) -> dict[str, Any]:
        """The task's parameters for this seed."""
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
    stage: Stage | None
    plan: Callable[[FaultContext], list[Planned]]
    then: str = "stop"  # "stop": done(); "oracle": the oracle plays on; "noop": until truncated
    replaces: bool = False  # with then="oracle": the oracle skips the golden step replaced
    eager: bool = False  # inject before the oracle waits for the step's target
    expect_golden: Callable[[int], int] | None = None  # golden step whose env step is expected
    expect_offset: int = 0  # else the fault's planned action at this offset
    note: FailureCode | None = None  # a passing run must keep this step note at the fault step
    claims_success: bool = True  # the agent ends the run with done() or an answer
    # the first divergence expected at the fault step (False: not checked for this fault)
    diverges: bool = False
    hook: Callable[[FaultyAgent], HookFactory] | None = None  # changes the page under the agent
    # the decisive step expected at the fault step (True) or none at all (False);
    # None: not checked for this fault
    decisive: bool | None = None


class FaultyAgent:
    """The oracle, with one fault injected at golden step ``at`` (1-based).

    Args:
        fault: what to inject.
        at: the golden step the fault replaces.
        path_id: the golden path the oracle plays (None: the first).
        env: the env, for faults that reach into it (a killed browser, a popup).
    """

    name = "faulty"
    reads_spec = True  # play_episode passes the spec the episode plays: the oracle's

    def __init__(
        self, fault: Fault, at: int, path_id: str | None = None, env: gym.Env | None = None
    ) -> None:
        self.fault, self.at, self.path_id, self.env = fault, at, path_id, env

    def reset(self, instance: TaskInstance, spec: TaskSpec | None = None) -> None:
        """Start an episode: a fresh oracle (on ``spec``, else the catalogue's spec of the
        instance), nothing injected yet."""
        self.oracle = OracleAgent(self.path_id)
        self.oracle.reset(instance, spec)
        self.states: list[SemanticState] = []
        self.golden_actions: list[str] = []
        self.env_step_of: dict[int, int] = {}  # golden step number -> env step index
        self.queue: list[Planned] = []
        self.fault_step: int | None = None
        self.step = 0

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        """The next action: the oracle's, the fault's, or what follows the fault."""
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

    @contextmanager
    def hooked(self, env: gym.Env) -> Iterator[None]:
        """Install the fault's hook on ``env`` for the episodes played inside the block."""
        if self.fault.hook is None:
            yield
            return
        factories = env.unwrapped.hook_factories  # type: ignore[attr-defined]
        factory = self.fault.hook(self)
        factories.append(factory)
        try:
            yield
        finally:
            factories.remove(factory)

    def _inject(self, ctx: FaultContext, golden_action: str | None) -> str:
        """The fault's first action; ``golden_action`` is the oracle's, which the fault replaces
        (then dropped) or delays (then replayed once the fault is out, with ``then="oracle"``)."""
        self.fault_step = self.step
        first, *self.queue = self.fault.plan(ctx)
        if golden_action is not None and self.fault.then == "oracle" and not self.fault.replaces:
            self.queue.append(_replay(golden_action))
        return _emit(first, ctx)

    def expected_step(self) -> int | None:
        """The env step the diagnosis must point at (None: the fault was never injected)."""
        if self.fault_step is None:
            return None
        if self.fault.expect_golden is None:
            return self.fault_step + self.fault.expect_offset
        return self.env_step_of.get(self.fault.expect_golden(self.at))


def _replay(golden_action: str) -> Planned:
    """The delayed golden action, resolved again on the page as it is once the fault is out
    (a fault that re-rendered the target leaves the first resolution stale)."""

    def again(ctx: FaultContext) -> str:
        action = ctx.golden_action
        return str(action.dsl()) if action is not None else golden_action

    return again


def _emit(item: Planned, ctx: FaultContext) -> str:
    return item if isinstance(item, str) else item(ctx)
