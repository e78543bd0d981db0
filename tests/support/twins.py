"""Ref and pixel twins of a faulty agent: the oracle (playing its golden path by ref, or as
pixels) with one fault injected at a golden step, then ``done()``; and scoring their runs
as the runner scores them."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from webharness.diagnosis.failures import FailureReport
from webharness.diagnosis.scoring import score_trace
from webharness.golden.oracle import OracleAgent
from webharness.golden.pixels import centre
from webharness.golden.play import episode_spec, play_episode
from webharness.semantic import Element, SemanticState
from webharness.spec.task_spec import TaskSpec
from webharness.trace.models import EpisodeTrace, TaskInstance

# A fault's plan: the actions that replace the golden step, each a string or made from the
# agent at the time it is sent.
Plan = Callable[["TwinAgent"], list[Any]]
_HEADING = re.compile(r'- heading "[^"\n]*" \[level=1\][^\n]*\[ref=(e\d+)\]')


class TwinAgent:
    """The oracle by ref (``pixels=False``) or as pixels, with ``plan`` played in place of
    golden step ``at`` (1-based), then ``done()``."""

    name = "twin"
    reads_spec = True

    def __init__(self, pixels: bool, at: int, plan: Plan) -> None:
        self.pixels, self.at, self.plan = pixels, at, plan

    def reset(self, instance: TaskInstance, spec: TaskSpec | None = None) -> None:
        self.oracle = OracleAgent(pixels=self.pixels)
        self.oracle.reset(instance, spec)
        self.states: list[SemanticState] = []
        self.obs: dict[str, Any] = {}
        self.queue: list[Any] = []
        self.step = 0
        self.fault_step: int | None = None  # the env step of the fault's first action

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        self.step += 1
        self.obs = obs
        self.states.append(info["semantic_state"])
        if self.queue:
            return self._emit(self.queue.pop(0))
        if self.fault_step is not None:
            return "done()"
        if self.oracle.next_step == self.at:
            self.fault_step = self.step
            first, *self.queue = self.plan(self)
            return self._emit(first)
        return self.oracle.act(obs, info)

    @property
    def state(self) -> SemanticState:
        return self.states[-1]

    def _emit(self, item: Any) -> str:
        return item if isinstance(item, str) else str(item(self))


@dataclass
class TwinRun:
    """A twin's scored run."""

    trace: EpisodeTrace
    failure: FailureReport
    fault_step: int | None

    @property
    def verdict(self) -> tuple[Any, ...]:
        """Code, step (counted from the fault's first action), stage and false success."""
        f, at = self.failure, self.fault_step
        offset = None if f.step is None or at is None else f.step - at
        return (f.code, offset, f.stage, f.false_success)


def run_twin(env: gym.Env, agent: TwinAgent, seed: int, goldens: Sequence[EpisodeTrace]) -> TwinRun:
    """Play the twin through ``env.step`` and score it against ``goldens`` as the runner
    does."""
    trace = play_episode(env, agent, seed, screenshots=False)
    score = score_trace(trace, goldens, spec=episode_spec(env))
    return TwinRun(trace, score.failure, agent.fault_step)


# --- what the twins do instead of the golden step -------------------------------------
def by_name(state: SemanticState, role: str, name: str) -> Element:
    found = state.find(role, name)
    assert found, (role, name, [(e.role, e.name) for e in state.elements])
    return found[0]


def heading_ref(agent: TwinAgent) -> str:
    found = _HEADING.search(agent.obs["axtree"])
    assert found, agent.obs["axtree"]
    return found.group(1)


def empty_point(state: SemanticState, viewport: tuple[int, int] = (1280, 720)) -> str:
    """A click on a point no element of the state covers (from the bottom right)."""
    for y in range(viewport[1] - 10, 0, -40):
        for x in range(viewport[0] - 10, 0, -40):
            if not any(_inside(e.bbox, x, y) for e in state.elements):
                return f"mouse_click({x}, {y})"
    raise AssertionError("no empty point on the page")


def _inside(bbox: tuple[float, float, float, float], x: float, y: float) -> bool:
    left, top, width, height = bbox
    return left - 4 <= x <= left + width + 4 and top - 4 <= y <= top + height + 4


def click_at(element: Element, **options: Any) -> str:
    x, y = centre(element)
    extra = "".join(f", {k}={v!r}" for k, v in options.items())
    return f"mouse_click({x}, {y}{extra})"
