"""Gymnasium's ``check_env`` over every registered MiniWoB++ task, in text mode (no
screenshot: the checker needs none, and a task's page and reset are what is checked),
in one browser kept for the module."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from webharness import miniwob

PACK = [f"WebEval/{name}-v0" for name in miniwob.pack_names()]


def test_at_least_a_hundred_miniwob_tasks_are_registered() -> None:
    assert len(PACK) >= 100 and set(PACK) <= set(gym.registry)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", PACK)
def test_check_env_passes_for_every_miniwob_task(browser: None, env_id: str) -> None:
    env = gym.make(env_id, obs_mode="text")
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()
