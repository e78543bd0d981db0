"""Live annotation against offline re-scoring: play a case through the diagnosis stack
users put on an env, then re-score its saved trace as ``webharness score`` does.

``LiveStack`` holds one wrapper stack (``RecordTrace`` → ``GoldenTraceAlignment`` →
``FailureAnnotation``) at a time, whose golden traces come from the golden-trace cache, as
the bench's do (``golden.cached``); ``live_agrees``
says whether the live ``info["failure"]`` and ``info["alignment"]`` equal the offline
``score_trace`` of the saved trace against the bench's golden traces.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym

from webharness.diagnosis.scoring import score_trace
from webharness.testing.fault_agent import FaultyAgent
from webharness.testing.suite import Bench, Case
from webharness.trace.io import load_trace

__all__ = ["LiveStack", "live_agrees", "play_live"]


class LiveStack:
    """The diagnosis wrappers over a scenario's env, one scenario at a time.

    Args:
        folder: where ``RecordTrace`` writes the episodes (a folder per scenario).
        seed: the seed every case is played with.
    """

    def __init__(self, folder: Path, seed: int) -> None:
        self.folder, self.seed = Path(folder), seed
        self._stack: tuple[str, gym.Env] | None = None

    def env(self, scenario: str) -> gym.Env:
        """The scenario's wrapper stack, closing the previous scenario's."""
        from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment, RecordTrace

        if self._stack is None or self._stack[0] != scenario:
            self.close()
            base = gym.make(f"WebEval/{scenario}-v0", obs_mode="text")
            recorded = RecordTrace(base, self.folder / scenario, screenshots=False)
            self._stack = (scenario, FailureAnnotation(GoldenTraceAlignment(recorded)))
        return self._stack[1]

    def play(self, case: Case) -> tuple[dict[str, Any], FaultyAgent]:
        """Play the case through the stack: the last step's info and the agent."""
        env = self.env(case.scenario)
        agent = FaultyAgent(case.fault, case.at, case.path, env)
        with agent.hooked(env):
            info = play_live(env, agent, self.seed)
        return info, agent

    def close(self) -> None:
        """Close the stack held, if any."""
        if self._stack is not None:
            self._stack[1].close()
            self._stack = None


def play_live(env: gym.Env, agent: FaultyAgent, seed: int) -> dict[str, Any]:
    """Play through a wrapper stack; the last step's info (with ``failure`` and ``trace_dir``)."""
    obs, info = env.reset(seed=seed)
    agent.reset(info["task"])
    while True:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            return info


def live_agrees(info: dict[str, Any], bench: Bench, scenario: str) -> bool:
    """Whether re-scoring the saved trace offline gives the live failure and alignment."""
    spec = bench.env(scenario).unwrapped.task_spec  # type: ignore[attr-defined]
    offline = score_trace(load_trace(info["trace_dir"]), bench.goldens(scenario), spec=spec)
    return bool(offline.failure == info["failure"] and offline.alignment == info["alignment"])
