"""MiniWoB++'s own envs (the ``miniwob`` package: Selenium + chromedriver) under
``bench_miniwob.py``'s random agent; run with the miniwob venv. The plan (JSON on stdin)
names the tasks, seeds, clicks per episode, the Chromium and the pages' URL. A candidate
is clicked by MiniWoB++'s own element reference (``CLICK_ELEMENT``), which its
observation gives every element. MiniWoB++ restarts an episode in place (no page load),
and seeds the page with the reset's seed itself: its instances are not BrowserGym's, so
this driver is for throughput (``bench_per_core.py``), not for comparing outcomes.
Prints one JSON line: every episode."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from miniwob_agent import CANDIDATES_JS, OUTCOME_JS, play_plan, print_result  # noqa: E402


class MiniWoBEpisodes:
    def __init__(self, task: str, plan: dict[str, Any]) -> None:
        import gymnasium as gym
        import miniwob

        gym.register_envs(miniwob)
        self.env: Any = gym.make(f"miniwob/{task}-v1", base_url=plan["miniwob_url"])
        self.reward = 0.0
        self.errors: list[str] = []

    @property
    def _driver(self) -> Any:
        return self.env.unwrapped.instance.driver

    def reset(self, seed: int) -> str:
        obs, _ = self.env.reset(seed=seed)
        self._driver.execute_script("core.EPISODE_MAX_TIME = 3600 * 1000;")  # as everywhere
        self.reward = 0.0
        return str(obs["utterance"])

    def candidates(self) -> list[dict[str, Any]]:
        return list(self._driver.execute_script(f"return ({CANDIDATES_JS})();"))

    def click(self, candidate: dict[str, Any]) -> bool:
        from miniwob.action import ActionTypes

        if candidate["wob_ref"] is None:
            self.errors.append(f"no MiniWoB++ ref for {candidate['tag']}:{candidate['label']}")
            return False
        action = self.env.unwrapped.create_action(
            ActionTypes.CLICK_ELEMENT, ref=int(candidate["wob_ref"])
        )
        _, reward, terminated, truncated, _ = self.env.step(action)
        self.reward = float(reward)
        return bool(terminated or truncated)

    def outcome(self) -> dict[str, Any]:
        done, raw, _ = self._driver.execute_script(f"return ({OUTCOME_JS})();")
        return {"done": bool(done), "raw_reward": float(raw), "reward": self.reward}

    def close(self) -> None:
        self.env.close()


def main() -> None:
    plan = json.load(sys.stdin)
    os.environ.setdefault("MINIWOB_CHROME_BINARY", plan["chromium"])
    os.environ.setdefault("MINIWOB_CHROMEDRIVER", "/usr/bin/chromedriver")
    episodes, errors = play_plan(plan, lambda task: MiniWoBEpisodes(task, plan))
    print_result("miniwob", episodes, errors)


if __name__ == "__main__":
    main()
