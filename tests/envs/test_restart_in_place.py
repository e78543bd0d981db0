"""In-place resets of the built-in sites whose pages start through ``App.page``
(``restart_in_place: App.restart()``): the next episode runs in the last one's document,
with a new backend, instead of loading the page again.

The outside reference is a new env's first reset, a page loaded anew with the same seed:
after an episode played to its end (the golden path: a record saved on the server, a
toast, a panel changed) and every store written, focus and scroll moved, the next episode
in place must show the same page (tree, state, pixels) and leave nothing of the one before.
A document that made history, has a request in flight, or whose restart fails loads anew.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from tests.support.leftovers import PROBE, leave
from webharness.envs import WebEvalEnv
from webharness.errors import TaskSpecError
from webharness.golden.oracle import OracleAgent
from webharness.golden.play import play_episode
from webharness.spec.catalogue import get_task
from webharness.spec.task_spec import TaskSpec

IN_PLACE_TASKS = ["form", "clarify", "validation"]

LEAVE = leave("""
  document.body.style.minHeight = '3000px';  // room to scroll
  window.scrollTo(0, 200);
  document.querySelector('input').focus({ preventScroll: true });""")


def evaluate(env: gym.Env, script: str) -> Any:
    page = env.unwrapped.episode.session.page
    return env.unwrapped.runtime.run(page.evaluate(script), 10)


def reset_kind(env: gym.Env) -> str:
    """How the last reset started its page: ``restart`` in place, ``load`` anew."""
    return "restart" if "restart" in env.unwrapped.last_timings_ms else "load"


def seen(env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
    """What the agent and the judge see at a reset."""
    return {
        "goal": info["task"].instruction,
        "axtree": obs["axtree"],
        "state": env.unwrapped.episode.last.fingerprint,
        "success": info["success"],
    }


@pytest.mark.parametrize("task", IN_PLACE_TASKS)
def test_after_a_played_episode_the_next_seed_restarts_as_a_new_load_shows_it(
    make_env: Callable, task: str
) -> None:
    fresh = make_env(f"WebEval/{task}-v0")
    expected_obs, expected_info = fresh.reset(seed=5)
    expected = seen(fresh, expected_obs, expected_info)
    expected_probe = evaluate(fresh, PROBE)

    env = make_env(f"WebEval/{task}-v0")
    trace = play_episode(env, OracleAgent(), seed=0)
    assert trace.end is not None and trace.end.success, f"the oracle did not solve {task}"
    page = env.unwrapped.episode.session.page
    evaluate(env, LEAVE)
    obs, info = env.reset(seed=5)

    assert reset_kind(env) == "restart" and env.unwrapped.episode.session.page is page
    assert seen(env, obs, info) == expected  # the server's records are the seed's again
    assert evaluate(env, PROBE) == expected_probe
    assert np.array_equal(obs["screenshot"], expected_obs["screenshot"])


def test_a_page_that_made_history_loads_anew(make_env: Callable) -> None:
    env = make_env("WebEval/form-v0", obs_mode="text")
    _, info = env.reset(seed=0)
    link = info["semantic_state"].find("link", "Companies")[0].ref
    env.step(f"click({link!r})")  # href="#": a history entry of its own
    env.reset(seed=1)
    assert reset_kind(env) == "load"


def test_a_page_with_a_request_in_flight_loads_anew(make_env: Callable) -> None:
    """Its answer would land in the next episode's page, from the last episode's backend."""
    env = make_env("WebEval/form-v0", obs_mode="text")
    env.reset(seed=0)
    runtime, session = env.unwrapped.runtime, env.unwrapped.episode.session
    held = runtime.run(_hold_requests(session.context, "**/api/held"), 10)
    evaluate(env, "() => { fetch('/api/held'); }")
    runtime.run(held.arrived.wait(), 10)
    try:
        env.reset(seed=1)
    finally:
        runtime.run(_release(held), 10)
    assert reset_kind(env) == "load"


def test_a_restart_that_fails_loads_anew() -> None:
    spec = get_task("form").model_copy(update={"restart_in_place": "throw new Error('no')"})
    env = WebEvalEnv(spec, obs_mode="text")
    try:
        env.reset(seed=0)
        obs, _ = env.reset(seed=1)
        assert reset_kind(env) == "load"
        assert "4 contacts" in obs["axtree"]
    finally:
        env.close()


def test_a_task_with_setup_cannot_declare_a_restart_in_place() -> None:
    data = get_task("form").model_dump(mode="json", exclude_none=True)
    data["setup"] = [{"cookies": [{"name": "tier", "value": "gold"}]}]
    with pytest.raises(TaskSpecError, match="restart_in_place.*cannot restart in place"):
        TaskSpec.model_validate(data)


class _Held:
    """Requests to a route held until released (made on the browser's loop)."""

    def __init__(self) -> None:
        self.arrived, self.released = asyncio.Event(), asyncio.Event()


async def _hold_requests(context: Any, pattern: str) -> _Held:
    held = _Held()

    async def hold(route: Any) -> None:
        held.arrived.set()
        await held.released.wait()
        await route.fallback()

    await context.route(pattern, hold)
    return held


async def _release(held: _Held) -> None:
    held.released.set()
