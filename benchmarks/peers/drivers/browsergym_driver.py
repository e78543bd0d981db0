"""BrowserGym (browsergym-core 0.14.3) under the peer protocol; run with its own venv.

BrowserGym launches two Chromiums per reset (the task's and the chat window's) through
one global sync Playwright; neither launch takes an executable path from the task, so
the global instance's ``chromium.launch`` is wrapped to use the system Chromium
(Playwright's own browser download is not reachable here). Nothing else is changed.

Plan options:
- ``tuned`` (bool): ``slow_mo=0`` and ``pre_observation_delay=0`` (shipped: the task's
  ``slow_mo`` of 1000 ms and a 0.5 s sleep before every observation), and the noop step
  is ``noop(0)`` instead of ``noop()``, which waits 1000 ms.
- ``chromium``: the executable (the same one webharness launches).
Pages load through BrowserGym's ``OpenEndedTask(start_url=...)``. ``mouse_click`` needs
the "coord" action subset, so the action set is the default one plus "coord".
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from protocol import TARGET_JS, Plan, TaskPlan, driver_main, log  # noqa: E402

logging.getLogger("browsergym").setLevel(logging.ERROR)  # "Overriding the task's slow_mo" per reset


class BrowserGymAdapter:
    def __init__(self, plan: Plan) -> None:
        from browsergym.core import _get_global_playwright
        from browsergym.core.action.highlevel import HighLevelActionSet

        self.tuned = bool(plan.options.get("tuned"))
        self.name = "browsergym-tuned" if self.tuned else "browsergym-shipped"
        playwright = _get_global_playwright()
        playwright.chromium.launch = functools.partial(
            playwright.chromium.launch, executable_path=plan.chromium
        )
        self.actions = HighLevelActionSet(subsets=["chat", "infeas", "bid", "coord", "nav", "tab"])
        self.env: Any = None
        self.errors: list[str] = []

    def open_task(self, task: TaskPlan) -> None:
        from browsergym.core.env import BrowserEnv
        from browsergym.core.task import OpenEndedTask

        tuning = {"slow_mo": 0, "pre_observation_delay": 0.0} if self.tuned else {}
        self.env = BrowserEnv(
            task_entrypoint=OpenEndedTask,
            task_kwargs={"start_url": task.url.format(seed=0), "goal": task.name},
            action_mapping=self.actions.to_python_code,
            **tuning,
        )

    def reset(self, task: TaskPlan, seed: int) -> None:
        self.env.task_kwargs["start_url"] = task.url.format(seed=seed)
        self.env.reset(seed=seed)

    def _step(self, action: str) -> None:
        obs, *_ = self.env.step(action)
        if obs["last_action_error"]:
            self.errors.append(f"{action}: {obs['last_action_error']}"[:300])

    def target(self, task: TaskPlan, expression: str) -> dict[str, Any]:
        found = self.env.page.evaluate(TARGET_JS % expression)
        if found is None or found.get("bid") is None:
            raise RuntimeError(f"{task.name}: no marked element for {expression!r}: {found}")
        return found

    def click(self, task: TaskPlan, target: dict[str, Any], timed: bool = True) -> None:
        self._step(f"click({target['bid']!r})")

    def mouse_click(self, task: TaskPlan, x: float, y: float) -> None:
        self._step(f"mouse_click({x:.1f}, {y:.1f})")

    def noop(self, task: TaskPlan) -> None:
        self._step("noop(0)" if self.tuned else "noop()")

    def screenshot(self, task: TaskPlan) -> None:
        from browsergym.core.observation import extract_screenshot

        extract_screenshot(self.env.page)

    def close_task(self, task: TaskPlan) -> None:
        if self.env is not None:
            self.env.close()
        self.env = None

    def close(self) -> None:
        self.close_task(None)  # type: ignore[arg-type]

    def extra(self) -> dict[str, Any]:
        if self.errors:
            log(f"[{self.name}] {len(self.errors)} action errors, first: {self.errors[0]}")
        return {"failed_actions": self.errors[:20], "failed_action_count": len(self.errors)}


if __name__ == "__main__":
    driver_main(BrowserGymAdapter)
