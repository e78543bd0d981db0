"""MiniWoB++'s drag, draw, resize and text-selection tasks are solvable with pixel
actions: the scripted pointer agent (``tests/support/miniwob_pointer.py``) solves each on
seeds 0 and 1 with ``mouse_move``, ``mouse_down``, ``mouse_up``, ``drag`` and
``mouse_click`` alone, reading where things are from a read-only look at the page. Success
is the page's own reward (``page_reward``; 0.9 for draw-circle and draw-line)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.miniwob_pointer import LOOK_JS, TASKS, PointerAgent, webharness_action

pytestmark = pytest.mark.slow  # 28 episodes, about 40 s on one worker
SEEDS = (0, 1)
POINTER_ACTIONS = ("mouse_click(", "mouse_move(", "mouse_down(", "mouse_up(", "drag(", "wait(")


def _look(env: Any) -> dict[str, Any]:
    unwrapped = env.unwrapped
    return dict(unwrapped.runtime.run(unwrapped.episode.session.page.evaluate(LOOK_JS), 10))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("task", TASKS)
def test_a_pixel_agent_solves_the_task(make_env, task: str, seed: int) -> None:
    env = make_env(f"WebEval/miniwob.{task}-v0", obs_mode="text")
    agent = PointerAgent(task)
    obs, info = env.reset(seed=seed)
    actions: list[str] = []
    terminated = truncated = False
    while not (terminated or truncated):
        actions.append(webharness_action(agent.act(obs["goal"], _look(env))))
        obs, _, terminated, truncated, info = env.step(actions[-1])
        assert info["action_result"].ok, (actions[-1], info["action_result"].message)
    assert all(action.startswith(POINTER_ACTIONS) for action in actions), actions
    assert (info["success"], info["episode_end"].ended_by.value) == (True, "task"), (
        obs["goal"],
        actions,
    )
