"""The raw Playwright floor under the peer protocol (our interpreter, our Playwright).

What a bare async Playwright script pays for the same work, with nothing a harness adds:
- reset: a fresh context (1280×720) and page, ``goto`` until DOMContentLoaded, observe;
  the previous context is closed in the background (webharness does the same).
- observe: ``page.screenshot()`` (PNG) + ``locator("body").aria_snapshot()``, as in
  ``benchmarks/bench_step.py``'s floor.
- click: a locator click (CSS attribute locator: the cheapest to resolve) + observe.
- mouse_click: ``page.mouse.click(x, y)`` + observe.
Chromium is the one webharness launches, with the same flags.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from playwright.async_api import BrowserContext, Page, async_playwright  # noqa: E402
from protocol import TARGET_JS, Plan, TaskPlan, driver_main  # noqa: E402

from webharness.browser.host import LAUNCH_ARGS  # noqa: E402


class FloorAdapter:
    name = "floor"

    def __init__(self, plan: Plan) -> None:
        self.viewport = {"width": plan.viewport[0], "height": plan.viewport[1]}
        self.loop = asyncio.new_event_loop()
        self.playwright = self._run(async_playwright().start())
        self.browser = self._run(
            self.playwright.chromium.launch(executable_path=plan.chromium, args=list(LAUNCH_ARGS))
        )
        self.context: BrowserContext | None = None
        self.page: Page | None = None
        self._closing: list[asyncio.Task[None]] = []

    def _run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    async def _observe(self) -> None:
        assert self.page is not None
        await self.page.screenshot()
        await self.page.locator("body").aria_snapshot()

    def open_task(self, task: TaskPlan) -> None:
        pass

    async def _reset(self, url: str) -> None:
        if self.context is not None:
            self._closing.append(self.loop.create_task(self.context.close()))
        self.context = await self.browser.new_context(viewport=self.viewport)
        self.page = await self.context.new_page()
        await self.page.goto(url, wait_until="domcontentloaded")
        await self._observe()

    def reset(self, task: TaskPlan, seed: int) -> None:
        self._run(self._reset(task.url.format(seed=seed)))

    def target(self, task: TaskPlan, expression: str) -> dict[str, Any]:
        assert self.page is not None
        found = self._run(self.page.evaluate(TARGET_JS % expression))
        if found is None:
            raise RuntimeError(f"{task.name}: no element for {expression!r}")
        return found

    async def _click(self) -> None:
        assert self.page is not None
        await self.page.locator('[data-bench-target="1"]').click()
        await self._observe()

    def click(self, task: TaskPlan, target: dict[str, Any], timed: bool = True) -> None:
        self._run(self._click())

    async def _mouse_click(self, x: float, y: float) -> None:
        assert self.page is not None
        await self.page.mouse.click(x, y)
        await self._observe()

    def mouse_click(self, task: TaskPlan, x: float, y: float) -> None:
        self._run(self._mouse_click(x, y))

    def noop(self, task: TaskPlan) -> None:
        self._run(self._observe())

    def screenshot(self, task: TaskPlan) -> None:
        assert self.page is not None
        self._run(self.page.screenshot())

    def close_task(self, task: TaskPlan) -> None:
        if self.context is not None:
            self._run(self.context.close())
        self.context = self.page = None
        if self._closing:
            self._run(asyncio.gather(*self._closing, return_exceptions=True))
        self._closing.clear()

    def close(self) -> None:
        self.close_task(None)  # type: ignore[arg-type]
        self._run(self.browser.close())
        self._run(self.playwright.stop())
        self.loop.close()


if __name__ == "__main__":
    driver_main(FloorAdapter)
