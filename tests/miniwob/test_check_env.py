"""Gymnasium's environment checker over the registered MiniWoB++ tasks, in text mode (no
screenshot: the checker needs none, and a task's page and reset are what is checked),
in one browser kept for the module.

Every task's page gets ``tests.support.gym_checks.page_checks`` (step determinism, every
observation within the space); the whole ``check_env``, which mostly checks the env's own
code, runs on a sample of pages of different kinds. A full ``check_env`` of every task was
a fifth of the suite's test time; Gymnasium's two determinism checks (7 resets) a seventh.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from tests.support.gym_checks import page_checks
from webharness import miniwob
from webharness.miniwob.specs import WALL_CLOCK_TASKS

PACK = [f"WebEval/{name}-v0" for name in miniwob.pack_names()]
# jQuery UI widgets, a long form, d3 drawing, a page on a wall clock, text input.
FULL_CHECK_SAMPLE = [
    f"WebEval/{miniwob.PREFIX}{task}-v0"
    for task in ("click-dialog", "book-flight", "bisect-angle", "stock-market", "enter-text")
]


def test_at_least_a_hundred_miniwob_tasks_are_registered() -> None:
    assert len(PACK) >= 100 and set(PACK) <= set(gym.registry)
    assert set(FULL_CHECK_SAMPLE) <= set(PACK)


# A wall-clock page (specs.WALL_CLOCK_TASKS) may show two same-seed runs different ticks:
# the determinism checks get this many tries there; any other failure fails at once.
WALL_CLOCK_TRIES = 3


def _checked(env_id: str, check: Callable[[gym.Env], None]) -> None:
    task = env_id.removeprefix(f"WebEval/{miniwob.PREFIX}").removesuffix("-v0")
    tries = WALL_CLOCK_TRIES if task in WALL_CLOCK_TASKS else 1
    env = gym.make(env_id, obs_mode="text")
    try:
        for left in reversed(range(tries)):
            try:
                check(env.unwrapped)
                break
            except AssertionError as exc:
                if left == 0 or "not equivalent" not in str(exc):
                    raise
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", PACK)
def test_every_miniwob_task_s_page_passes_gymnasium_s_step_determinism_check(
    browser: None, env_id: str
) -> None:
    _checked(env_id, page_checks)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", FULL_CHECK_SAMPLE)
def test_check_env_passes_in_full_on_a_sample_of_miniwob_tasks(browser: None, env_id: str) -> None:
    _checked(env_id, lambda env: check_env(env, skip_render_check=True))


def test_the_wall_clock_tasks_are_tasks_of_the_pack() -> None:
    assert {f"WebEval/{miniwob.PREFIX}{t}-v0" for t in WALL_CLOCK_TASKS} <= set(PACK)
