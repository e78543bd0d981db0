"""Shared test helpers: envs closed after use, and a loop that plays an agent."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import pytest

import webharness  # noqa: F401  (registers the WebEval/* ids)
from webharness.oracle import OracleAgent


@dataclass
class EpisodeRun:
    """What a played episode produced, for assertions."""

    actions: list[str] = field(default_factory=list)
    infos: list[dict[str, Any]] = field(default_factory=list)
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False

    @property
    def last(self) -> dict[str, Any]:
        return self.infos[-1]

    @property
    def success(self) -> bool:
        return bool(self.last["success"]) and self.reward == 1.0


Policy = Callable[[dict[str, Any], dict[str, Any]], str]


def play(env: gym.Env, policy: Policy, seed: int, max_steps: int = 60) -> EpisodeRun:
    """Reset with ``seed`` and step ``policy`` until the episode ends."""
    obs, info = env.reset(seed=seed)
    run = EpisodeRun(infos=[info])
    for _ in range(max_steps):
        action = policy(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        run.actions.append(action)
        run.infos.append(info)
        run.reward, run.terminated, run.truncated = reward, terminated, truncated
        if terminated or truncated:
            break
    return run


def oracle_policy(env: gym.Env, path_id: str | None = None) -> Policy:
    """A policy that plays a golden path; resets itself on each new episode."""
    agent = OracleAgent(path_id)
    current: dict[str, Any] = {"instance": None}

    def act(obs: dict[str, Any], info: dict[str, Any]) -> str:
        if current["instance"] is not info["task"]:
            current["instance"] = info["task"]
            agent.reset(info["task"])
        return agent.act(obs, info)

    return act


@pytest.fixture
def make_env() -> Iterator[Callable[..., gym.Env]]:
    """Make envs by id (``gym.make`` kwargs allowed); all are closed after the test."""
    made: list[gym.Env] = []

    def factory(env_id: str, **kwargs: Any) -> gym.Env:
        env = gym.make(env_id, **kwargs)
        made.append(env)
        return env

    yield factory
    for env in made:
        env.close()
