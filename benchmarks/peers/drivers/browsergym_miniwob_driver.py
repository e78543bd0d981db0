"""BrowserGym's MiniWoB++ envs (browsergym-miniwob 0.14.3) under ``bench_miniwob.py``'s
random agent; run with the BrowserGym venv. The plan (JSON on stdin) names the tasks, the
seeds, the clicks per episode, the Chromium to launch and the pages' URL (``MINIWOB_URL``:
our local server of the miniwob package's html folder). Tuned as ``browsergym_driver.py``
is: ``slow_mo=0`` and ``pre_observation_delay=0`` (shipped: 100 ms per action for
MiniWoB++ and 0.5 s before each observation). With the pointer agent (``"agent":
"pointer"``) the actions are BrowserGym's coordinate subset, several calls a step
(``multiaction``: a drag is ``mouse_down``, ``mouse_move``s, ``mouse_up``), at the same
page points given in its screenshot's pixels (its MiniWoB++ pages' ``_bgym_scale_factor``,
1.5). Prints one JSON
line: every episode."""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from miniwob_agent import CANDIDATES_JS, OUTCOME_JS, play_plan, print_result  # noqa: E402

from tests.support.miniwob_pointer import LOOK_JS, browsergym_action, pointer_after  # noqa: E402

logging.getLogger("browsergym").setLevel(logging.ERROR)


class BrowserGymEpisodes:
    def __init__(self, task: str, plan: dict[str, Any]) -> None:
        from browsergym.core.action.highlevel import HighLevelActionSet
        from browsergym.core.env import BrowserEnv
        from browsergym.miniwob import ALL_MINIWOB_TASKS

        entry = next(t for t in ALL_MINIWOB_TASKS if t.subdomain == task)
        pointer = plan.get("agent") == "pointer"
        actions = HighLevelActionSet(subsets=["coord" if pointer else "bid"], multiaction=pointer)
        self.env = BrowserEnv(
            task_entrypoint=entry,
            task_kwargs={"base_url": plan["miniwob_url"]},
            action_mapping=actions.to_python_code,
            slow_mo=0,
            pre_observation_delay=0.0,
        )
        self.reward = 0.0
        self.errors: list[str] = []
        self.pointer_at = (0.0, 0.0)

    def reset(self, seed: int) -> str:
        obs, _ = self.env.reset(seed=seed)
        self.reward, self.pointer_at = 0.0, (0.0, 0.0)
        return str(obs["goal"])

    def candidates(self) -> list[dict[str, Any]]:
        return list(self.env.unwrapped.page.evaluate(CANDIDATES_JS))

    def click(self, candidate: dict[str, Any]) -> bool:
        obs, reward, terminated, truncated, _ = self.env.step(f"click({candidate['bid']!r})")
        if obs["last_action_error"]:
            self.errors.append(str(obs["last_action_error"])[:200])
        self.reward = float(reward)
        return bool(terminated or truncated)

    def look(self) -> dict[str, Any]:
        return dict(self.env.unwrapped.page.evaluate(LOOK_JS))

    def act(self, op: tuple[Any, ...]) -> bool:
        scale = getattr(self.env.unwrapped.page, "_bgym_scale_factor", 1.0)
        action = browsergym_action(op, self.pointer_at, scale)
        self.pointer_at = pointer_after(op, self.pointer_at)
        obs, reward, terminated, truncated, _ = self.env.step(action)
        if obs["last_action_error"]:
            self.errors.append(f"{action[:80]}: {obs['last_action_error']}"[:200])
        self.reward = float(reward)
        return bool(terminated or truncated)

    def outcome(self) -> dict[str, Any]:
        done, raw, _ = self.env.unwrapped.page.evaluate(OUTCOME_JS)
        return {"done": bool(done), "raw_reward": float(raw), "reward": self.reward}

    def close(self) -> None:
        self.env.close()


def main() -> None:
    plan = json.load(sys.stdin)
    from browsergym.core import _get_global_playwright

    playwright = _get_global_playwright()
    playwright.chromium.launch = functools.partial(
        playwright.chromium.launch, executable_path=plan["chromium"]
    )
    episodes, errors = play_plan(plan, lambda task: BrowserGymEpisodes(task, plan))
    print_result("browsergym", episodes, errors)


if __name__ == "__main__":
    main()
