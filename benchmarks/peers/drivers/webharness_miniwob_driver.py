"""webharness's MiniWoB++ pack (``WebEval/miniwob.<task>-v0``) under ``bench_miniwob.py``'s
random agent; run with our interpreter. ``reset(seed=s)`` is played as
``reset(seed=page_seed(s))``: the page is seeded with what BrowserGym seeds it with for
``s``, so both show the same instance (the goals are compared). A candidate is clicked by
our ref (the element of the semantic state under its centre), or at its centre by
``mouse_click`` when the tree gives it no ref (counted). The pointer agent's ops are our
pixel actions (``webharness_action``). Prints one JSON line."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gymnasium as gym  # noqa: E402
from miniwob_agent import CANDIDATES_JS, play_plan, print_result  # noqa: E402

import webharness  # noqa: E402
from tests.support.miniwob_pointer import LOOK_JS, webharness_action  # noqa: E402


class WebHarnessEpisodes:
    def __init__(self, task: str, plan: dict[str, Any]) -> None:
        self.env = gym.make(
            f"WebEval/miniwob.{task}-v0",
            obs_mode=plan["obs_mode"],
            viewport=tuple(plan["viewport"]),
        )
        self.info: dict[str, Any] = {}
        self.reward = 0.0
        self.by_coordinates = 0
        self.errors: list[str] = []

    def reset(self, seed: int) -> str:
        from miniwob_agent import page_seed

        obs, self.info = self.env.reset(seed=page_seed(seed))
        self.reward = 0.0
        return str(obs["goal"])

    def _evaluate(self, script: str) -> Any:
        env = self.env.unwrapped
        page = env.episode.session.page  # the benchmark's own look, as the agent's policy
        return env.runtime.run(page.evaluate(script), 30)

    def candidates(self) -> list[dict[str, Any]]:
        return list(self._evaluate(CANDIDATES_JS))

    def look(self) -> dict[str, Any]:
        return dict(self._evaluate(LOOK_JS))

    def act(self, op: tuple[Any, ...]) -> bool:
        return self._step(webharness_action(op))

    def _ref(self, candidate: dict[str, Any]) -> str | None:
        x, y = candidate["x"], candidate["y"]
        under = [
            e
            for e in self.info["semantic_state"].elements
            if e.bbox[0] <= x <= e.bbox[0] + e.bbox[2] and e.bbox[1] <= y <= e.bbox[1] + e.bbox[3]
        ]
        return min(under, key=lambda e: e.bbox[2] * e.bbox[3]).ref if under else None

    def click(self, candidate: dict[str, Any]) -> bool:
        ref = self._ref(candidate)
        if ref is None:
            self.by_coordinates += 1
            action = f"mouse_click({candidate['x']:.1f}, {candidate['y']:.1f})"
        else:
            action = f"click({ref!r})"
        return self._step(action)

    def _step(self, action: str) -> bool:
        _, reward, terminated, truncated, self.info = self.env.step(action)
        result = self.info["action_result"]
        if not result.ok:
            self.errors.append(f"{action}: {result.message}"[:200])
        self.reward = float(reward)
        return bool(terminated or truncated)

    def outcome(self) -> dict[str, Any]:
        env = self.env.unwrapped
        done, raw = (
            env.episode.criteria_context().js.get(k)
            for k in ("WOB_DONE_GLOBAL", "WOB_RAW_REWARD_GLOBAL")
        )
        return {
            "done": bool(done),
            "raw_reward": float(raw or 0),
            "reward": self.reward,
            "success": bool(self.info["success"]),
        }

    def close(self) -> None:
        self.env.close()


def main() -> None:
    plan = json.load(sys.stdin)
    made: list[WebHarnessEpisodes] = []

    def make(task: str) -> WebHarnessEpisodes:
        made.append(WebHarnessEpisodes(task, plan))
        return made[-1]

    with webharness.keep_browser():
        episodes, errors = play_plan(plan, make)
    name = "webharness" if plan["obs_mode"] == "both" else f"webharness-{plan['obs_mode']}"
    by_coordinates = sum(library.by_coordinates for library in made)
    print_result(name, episodes, errors, by_coordinates=by_coordinates)


if __name__ == "__main__":
    main()
