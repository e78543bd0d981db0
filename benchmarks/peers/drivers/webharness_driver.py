"""webharness under the peer protocol (run with our own interpreter).

MiniWoB++ pages load as external-site tasks (``TaskSpec(start_url=..., site=None)``),
judged by the page's own reward variable; our scenarios load by id. Besides the times,
it returns ``env.unwrapped.last_timings_ms`` of every timed step (the profile).

Plan option ``obs_mode``: "both" (default: screenshot + tree) or "text".
"""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gymnasium as gym  # noqa: E402
from protocol import TARGET_JS, Plan, TaskPlan, driver_main, log  # noqa: E402

import webharness  # noqa: E402,F401  (registers the envs)
from webharness.envs import WebEvalEnv  # noqa: E402
from webharness.spec.task_spec import TaskSpec  # noqa: E402


def external_spec(task: TaskPlan, seed: int) -> TaskSpec:
    return TaskSpec.model_validate(
        {
            "id": task.name.replace("-", "_"),
            "category": "miniwob",
            "site": None,
            "instruction": "A MiniWoB++ page (speed benchmark).",
            "start_url": task.url.format(seed=seed),
            "max_steps": 1000,
            "success": {"kind": "js", "expression": "WOB_RAW_REWARD_GLOBAL > 0"},
        }
    )


class WebHarnessAdapter:
    def __init__(self, plan: Plan) -> None:
        self.obs_mode = plan.options.get("obs_mode", "both")
        self.viewport = plan.viewport
        self.name = "webharness" if self.obs_mode == "both" else f"webharness-{self.obs_mode}"
        self.env: gym.Env | None = None
        self.info: dict[str, Any] = {}
        self.profile: dict[str, list[dict[str, float]]] = {}
        self.failed_actions: list[str] = []
        self._task = ""
        self._steps_since_reset = 0

    def open_task(self, task: TaskPlan) -> None:
        self._task = task.name
        if self._ours(task):
            self.env = gym.make(
                task.native, obs_mode=self.obs_mode, viewport=self.viewport, max_steps=1000
            )
        else:
            self.env = WebEvalEnv(
                external_spec(task, 0), obs_mode=self.obs_mode, viewport=self.viewport
            )

    @staticmethod
    def _ours(task: TaskPlan) -> bool:
        """A scenario of ours, opened by its id (else the page loads as an external site)."""
        return bool(task.native and task.native.startswith("WebEval/"))

    def _profile(self, op: str) -> None:
        assert self.env is not None
        self.profile.setdefault(f"{self._task}/{op}", []).append(self.env.unwrapped.last_timings_ms)

    def reset(self, task: TaskPlan, seed: int) -> None:
        assert self.env is not None
        if not self._ours(task):  # the same page and seed the peers get
            self.env.unwrapped.task_spec = external_spec(task, seed)
        _, self.info = self.env.reset(seed=seed)
        self._profile("reset")
        self._steps_since_reset = 0

    def _step(self, action: str, op: str | None) -> None:
        assert self.env is not None
        _, _, _, _, self.info = self.env.step(action)
        self._steps_since_reset += 1
        result = self.info["action_result"]
        if not result.ok:
            self.failed_actions.append(f"{self._task}: {action}: {result.message}"[:300])
        if op is not None:
            self._profile(op)

    def target(self, task: TaskPlan, expression: str) -> dict[str, Any]:
        assert self.env is not None
        env = self.env.unwrapped
        found = env.runtime.run(env.episode.session.page.evaluate(TARGET_JS % expression), 30)
        if found is None:
            raise RuntimeError(f"{task.name}: no element for {expression!r}")
        x, y = found["x"], found["y"]
        hits = [
            e
            for e in self.info["semantic_state"].elements
            if e.bbox[0] <= x <= e.bbox[0] + e.bbox[2] and e.bbox[1] <= y <= e.bbox[1] + e.bbox[3]
        ]
        if not hits:
            raise RuntimeError(
                f"{task.name}: no element of the semantic state at ({x:.0f}, {y:.0f})"
            )
        found["ref"] = min(hits, key=lambda e: e.bbox[2] * e.bbox[3]).ref
        return found

    def click(self, task: TaskPlan, target: dict[str, Any], timed: bool = True) -> None:
        self._step(f"click({target['ref']!r})", "click" if timed else None)

    def mouse_click(self, task: TaskPlan, x: float, y: float) -> None:
        self._step(f"mouse_click({x:.1f}, {y:.1f})", "mouse_click")

    def noop(self, task: TaskPlan) -> None:
        self._step("noop()", "noop" if self._steps_since_reset else "first_step")

    def screenshot(self, task: TaskPlan) -> None:
        assert self.env is not None
        env = self.env.unwrapped
        env.runtime.run(env.episode.session.screenshot(), 30)

    def close_task(self, task: TaskPlan) -> None:
        if self.env is not None:
            self.env.close()
        self.env = None

    def close(self) -> None:
        if self.env is not None:
            self.env.close()

    def extra(self) -> dict[str, Any]:
        if self.failed_actions:
            log(
                f"[{self.name}] {len(self.failed_actions)} failed actions, "
                f"first: {self.failed_actions[0]}"
            )
        return {
            "profile": self.profile,
            "failed_actions": self.failed_actions[:20],
            "failed_action_count": len(self.failed_actions),
        }


if __name__ == "__main__":
    driver_main(WebHarnessAdapter)
