"""MiniWoB++ (the ``miniwob`` package) under the peer protocol; run with its own venv.

Selenium + chromedriver (Debian's ``chromium-driver``) on the system Chromium, given by
``MINIWOB_CHROME_BINARY`` / ``MINIWOB_CHROMEDRIVER``. The task pages come from our local
server (``base_url``), the same files the package ships. MiniWoB++ keeps one page per
env: its ``reset`` restarts the episode in place with JavaScript (no page load), and its
window is its own (the screenshot is cropped to the 160×210 task area), not 1280×720.
The only change to the page: the 10 s episode timer is lifted, as for every library.
"""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from protocol import TARGET_JS, Plan, TaskPlan, driver_main, log  # noqa: E402


class MiniWoBAdapter:
    name = "miniwob"

    def __init__(self, plan: Plan) -> None:
        os.environ.setdefault("MINIWOB_CHROME_BINARY", plan.chromium)
        os.environ.setdefault(
            "MINIWOB_CHROMEDRIVER", plan.options.get("chromedriver", "/usr/bin/chromedriver")
        )
        import gymnasium as gym
        import miniwob

        gym.register_envs(miniwob)
        self.env: Any = None
        self.errors: list[str] = []

    def open_task(self, task: TaskPlan) -> None:
        import gymnasium as gym
        from miniwob.environment import MiniWoBEnvironment

        base_url = task.url.split("?")[0].rsplit("/", 1)[0] + "/"
        name = task.url.split("?")[0].rsplit("/", 1)[1].removesuffix(".html")
        if task.native and not task.native.startswith("miniwob/"):
            # Not a MiniWoB++ page: try it as MiniWoB++ would load one (with a field
            # extractor, which only MiniWoB++'s own tasks have), and report what happens.
            try:
                self.env = MiniWoBEnvironment(
                    subdomain=name, base_url=base_url, field_extractor=lambda utterance: []
                )
            except Exception as exc:
                raise RuntimeError(
                    "MiniWoB++ drives only pages built on its core.js: it waited for the sync "
                    f"cover #sync-task-cover, which {task.url} does not have "
                    f"({type(exc).__name__}); "
                    "its reset calls core.startEpisodeReal() and its observation "
                    "core.getDOMInfo() in the page"
                ) from None
        else:
            self.env = gym.make(f"miniwob/{name}-v1", base_url=base_url)
        self.driver.execute_script("core.EPISODE_MAX_TIME = 3600 * 1000;")

    @property
    def driver(self) -> Any:
        return self.env.unwrapped.instance.driver

    def reset(self, task: TaskPlan, seed: int) -> None:
        self.env.reset(seed=seed)

    def _step(self, action: Any, label: str) -> None:
        _, _, terminated, _, info = self.env.step(action)
        if info.get("done") and not terminated:
            self.errors.append(label)

    def target(self, task: TaskPlan, expression: str) -> dict[str, Any]:
        found = self.driver.execute_script(f"return ({TARGET_JS % expression})();")
        if found is None or found.get("wob_ref") is None:
            raise RuntimeError(
                f"{task.name}: no element with a MiniWoB++ ref for {expression!r}: {found}"
            )
        return found

    def click(self, task: TaskPlan, target: dict[str, Any], timed: bool = True) -> None:
        from miniwob.action import ActionTypes

        self._step(
            self.env.unwrapped.create_action(ActionTypes.CLICK_ELEMENT, ref=int(target["wob_ref"])),
            "click",
        )

    def mouse_click(self, task: TaskPlan, x: float, y: float) -> None:
        import numpy as np
        from miniwob.action import ActionTypes

        coords = np.array([x, y], dtype=np.float32)
        self._step(
            self.env.unwrapped.create_action(ActionTypes.CLICK_COORDS, coords=coords), "mouse_click"
        )

    def noop(self, task: TaskPlan) -> None:
        from miniwob.action import ActionTypes

        self._step(self.env.unwrapped.create_action(ActionTypes.NONE), "noop")

    def screenshot(self, task: TaskPlan) -> None:
        from miniwob.screenshot import get_screenshot, pil_to_numpy_array

        instance = self.env.unwrapped.instance
        pil_to_numpy_array(
            get_screenshot(
                self.driver,
                instance.inner_width,
                instance.inner_height,
                instance.task_width,
                instance.task_height,
            )
        )

    def close_task(self, task: TaskPlan) -> None:
        if self.env is not None:
            self.env.close()
        self.env = None

    def close(self) -> None:
        self.close_task(None)  # type: ignore[arg-type]

    def extra(self) -> dict[str, Any]:
        if self.errors:
            log(f"[miniwob] {len(self.errors)} odd steps, first: {self.errors[0]}")
        return {"failed_actions": self.errors[:20], "failed_action_count": len(self.errors)}


if __name__ == "__main__":
    driver_main(MiniWoBAdapter)
