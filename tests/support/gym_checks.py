"""Gymnasium's checks of what a task's page decides, for the scenario and MiniWoB++ tests.

``check_env`` resets an env 12 times. Most of it (return types, ``options``, returned
buffers not reused, the passive checkers, ``reset()`` without a seed after a seeded one,
closing twice) checks ``WebEvalEnv``'s own code, the same for every task, so the tests run
it in full on a sample. What a task's page decides is whether the same seed and action give
the same observation: ``page_checks`` runs Gymnasium's step determinism check (two resets
with one seed, the same sampled action after each: equal observations, rewards and ends),
with every observation checked against the space. The page after the step is the whole
seeded page, so this is also the page's seeded-reset determinism.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.utils.env_checker import check_step_determinism


class InSpace(gym.Wrapper):
    """Fails on any observation outside the env's observation space."""

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        assert obs in self.observation_space, "reset's observation is outside the space"
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        assert obs in self.observation_space, "step's observation is outside the space"
        return obs, reward, terminated, truncated, info


def page_checks(env: gym.Env) -> None:
    """Gymnasium's step determinism check, every observation within the space."""
    check_step_determinism(InSpace(env))
