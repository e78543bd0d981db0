"""In-place resets: a MiniWoB++ page restarts its task in the document the last episode
ran in (``page_start.in_place``), as MiniWoB++'s own env restarts it, instead of loading.

The outside reference is a new env's first reset, a page loaded anew: the next episode in
place must not be able to tell its page from that one (every store a page can write, the
focus, the scroll, the selection, the history), and must show the same instance for the
same seed. A document that made history or left its start page, and a task whose page
keeps state through the restart (``specs.LOAD_ANEW_TASKS``), load the page anew."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import pytest

from tests.support.leftovers import PROBE, leave
from tests.support.sites import site_spec
from webharness.envs import WebEvalEnv
from webharness.miniwob.specs import LOAD_ANEW_TASKS
from webharness.spec.task_spec import TaskSpec

TASK = "WebEval/miniwob.click-checkboxes-v0"

# What an episode can leave in its document and around it: every store it can write, the
# focus, a scroll, a selection (no history: that makes the next reset load anew).
LEAVE = leave("""
  for (const el of [document.documentElement, document.body]) el.style.overflow = 'auto';
  document.body.style.minHeight = '3000px';  // room to scroll
  window.scrollTo(0, 200);
  document.querySelector('input').focus({ preventScroll: true });
  getSelection().selectAllChildren(document.querySelector('#query, h1'));""")


def evaluate(env: gym.Env, script: str) -> Any:
    page = env.unwrapped.episode.session.page
    return env.unwrapped.runtime.run(page.evaluate(script), 10)


def reset_kind(env: gym.Env) -> str:
    """How the last reset started its page: ``restart`` in place, ``load`` anew."""
    timings = env.unwrapped.last_timings_ms
    return "restart" if "restart" in timings else "load"


def restarting_task() -> TaskSpec:
    """A page of the suite's own that restarts its task in place and, unlike MiniWoB++'s,
    touches nothing outside its task area (focus, scroll and selection are ours to reset)."""
    start = {"script": "startTask({{seed}})", "goal": "goal.textContent", "in_place": True}
    return site_spec("restart_site", params={"seed": {"kind": "seed"}}, page_start=start)


@pytest.fixture(params=["miniwob", "own page"])
def make(request: pytest.FixtureRequest, make_env: Callable) -> Callable[[], gym.Env]:
    """Envs of a MiniWoB++ task, or of the suite's own restarting page."""
    if request.param == "miniwob":
        return lambda: make_env(TASK, obs_mode="text")
    envs: list[gym.Env] = []
    request.addfinalizer(lambda: [env.close() for env in envs])
    return lambda: envs.append(WebEvalEnv(restarting_task(), obs_mode="text")) or envs[-1]


def test_a_reset_in_place_leaves_nothing_of_the_episode_before(
    make: Callable[[], gym.Env],
) -> None:
    fresh = make()
    fresh.reset(seed=1)
    expected = evaluate(fresh, PROBE)
    assert expected["workers"] is False  # no service worker can exist on our origins

    env = make()
    env.reset(seed=0)
    page = env.unwrapped.episode.session.page
    evaluate(env, LEAVE)
    assert evaluate(env, PROBE) != expected  # the page did leave what it could
    obs, _ = env.reset(seed=1)

    assert reset_kind(env) == "restart" and env.unwrapped.episode.session.page is page
    assert evaluate(env, PROBE) == expected
    assert obs["axtree"] == fresh.unwrapped.episode.last.axtree  # same instance, refs from e1


@pytest.mark.parametrize(
    ("left", "why"),
    [
        ("() => history.pushState({}, '', '#moved')", "history"),
        ("() => { location.href = '/miniwob/click-button.html'; }", "another page"),
    ],
)
def test_a_page_that_made_history_or_left_loads_anew(
    make_env: Callable, left: str, why: str
) -> None:
    fresh = make_env(TASK, obs_mode="text")
    fresh.reset(seed=1)
    env = make_env(TASK, obs_mode="text")
    env.reset(seed=0)
    evaluate(env, left)
    env.step("noop()")  # the page settles (a navigation: on its new document)
    obs, _ = env.reset(seed=1)
    assert reset_kind(env) == "load", why
    assert evaluate(env, PROBE) == evaluate(fresh, PROBE)
    assert obs["axtree"] == fresh.unwrapped.episode.last.axtree


@pytest.mark.parametrize(
    "task", ["click-checkboxes", "click-tab-2", "enter-text", "click-collapsible-2", "drag-items"]
)
def test_after_an_episode_of_clicks_the_same_seed_restarts_the_same_instance(
    make_env: Callable, task: str
) -> None:
    env_id = f"WebEval/miniwob.{task}-v0"
    fresh = make_env(env_id, obs_mode="text")
    expected, _ = fresh.reset(seed=5)
    env = make_env(env_id, obs_mode="text")
    obs, _ = env.reset(seed=0)
    for ref in re.findall(r"\[ref=(e\d+)\]", obs["axtree"])[1:4]:  # clicks, as an agent's
        if env.step(f"click({ref!r})")[2]:
            break
    again, _ = env.reset(seed=5)
    assert reset_kind(env) == "restart"
    assert (again["goal"], again["axtree"]) == (expected["goal"], expected["axtree"])


def test_a_task_whose_page_keeps_state_through_the_restart_loads_anew(
    make_env: Callable,
) -> None:
    assert "choose-date" in LOAD_ANEW_TASKS
    env = make_env("WebEval/miniwob.choose-date-v0", obs_mode="text")
    env.reset(seed=0)
    env.step("noop()")
    env.reset(seed=1)
    assert reset_kind(env) == "load"


def test_a_cube_released_spinning_stops_at_the_next_reset(make_env: Callable) -> None:
    """drag-cube's restart sets the cube's angles but not its spin: the next episode must
    start with the cube at rest, as a new load's does."""
    env = make_env("WebEval/miniwob.drag-cube-v0", obs_mode="text")
    env.reset(seed=0)
    # Released while it turns fast (as a fling leaves it; set, not flung, so that the
    # machine's load cannot let it slow down before the reset).
    evaluate(env, "cube.viewport.torqueX = 30")
    env.reset(seed=1)
    assert (reset_kind(env), evaluate(env, "Math.abs(cube.viewport.torqueX)")) == ("load", 0)
