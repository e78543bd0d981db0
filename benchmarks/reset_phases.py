"""Where a reset's time goes, phase by phase, beside the raw Playwright floor's phases.

Ours: back-to-back resets of ``form-v0`` (or ``--env-id``'s task), three ``noop()`` steps
between them as in ``bench_step.py``, each split into
- ``python``: the env's own work outside the browser (the task drawn, hooks, the info);
- ``wipe``: the last episode's page made new (``page_reuse.py``: about:blank, history,
  scripts, cookies and storage);
- ``scripts``: the episode's init scripts installed;
- ``load``: the start page opened, its ready condition met and the page settled (or
  ``restart``: a page that restarts its own task in place, ``page_start.in_place``);
- ``snapshot`` and ``screenshot``: the first observation.
The floor, the same number of times, as ``peers/drivers/floor_driver.py`` resets: a new
context with the site routed, a new page, the start page loaded (``goto`` until
DOMContentLoaded), and the first observation (a PNG screenshot and an aria snapshot); the
previous context closed in the background.

Run: python benchmarks/reset_phases.py [--resets 30] [--obs-mode both] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Coroutine
from typing import Any

import gymnasium as gym
from playwright.async_api import async_playwright

import webharness  # noqa: F401  (registers the envs)
from webharness.browser import page_reuse, page_session
from webharness.browser.host import LAUNCH_ARGS, find_chromium
from webharness.browser.site import SiteRouter
from webharness.episode import episode as episode_module

ENV_ID = "WebEval/form-v0"


def timed(phases: dict[str, list[float]], name: str, function: Callable[..., Any]) -> Any:
    """``function`` (a coroutine function) that adds its seconds to ``phases[name]``."""

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await function(*args, **kwargs)
        finally:
            phases[name].append(time.perf_counter() - started)

    return wrapper


def ours(env_id: str, resets: int, obs_mode: str) -> dict[str, float]:
    """Medians (ms) of a reset and its phases."""
    phases: dict[str, list[float]] = defaultdict(list)
    patches = [
        (page_reuse.Leftovers, "wipe", "wipe"),
        (page_session.PageSession, "add_episode_script", "scripts"),
        (episode_module.Episode, "start", "start"),
    ]
    originals = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in patches]
    for owner, attr, name in patches:
        setattr(owner, attr, timed(phases, name, getattr(owner, attr)))
    env = gym.make(env_id, obs_mode=obs_mode, max_steps=1000)
    try:
        env.reset(seed=0)  # launch the browser, warm the caches
        phases.clear()
        per_reset: dict[str, list[float]] = defaultdict(list)
        for episode in range(1, resets + 1):
            for _ in range(3):
                env.step("noop()")
            seen = {name: len(phases[name]) for name in ("wipe", "scripts", "start")}
            started = time.perf_counter()
            env.reset(seed=episode)
            per_reset["reset"].append(time.perf_counter() - started)
            for name, count in seen.items():  # each phase's time in this reset
                per_reset[name].append(sum(phases[name][count:]))
            for key, ms in env.unwrapped.last_timings_ms.items():
                per_reset[key].append(ms / 1000)
    finally:
        env.close()
        for owner, attr, original in originals:
            setattr(owner, attr, original)
    outside = zip(per_reset["reset"], per_reset["wipe"], per_reset.pop("start"), strict=True)
    per_reset["python"] = [total - wipe - start for total, wipe, start in outside]
    return {name: median_ms(samples) for name, samples in per_reset.items()}


async def floor(resets: int, env_id: str = ENV_ID) -> dict[str, float]:
    """Medians (ms) of a raw Playwright reset and its phases, on the same page served the
    same way."""
    env = gym.make(env_id, obs_mode="text")
    env.reset(seed=0)  # our router only serves the page's files identically
    site, start_url = env.unwrapped.episode.site, env.unwrapped.episode.start_url
    env.close()
    phases: dict[str, list[float]] = defaultdict(list)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_chromium(), args=list(LAUNCH_ARGS))
        router = SiteRouter()
        router.episode = site
        closing: list[asyncio.Task[None]] = []
        for attempt in range(resets + 1):
            lap = Lap()
            context = await browser.new_context(viewport={"width": 1280, "height": 720})
            await context.route("**/*", router.handle)
            lap.mark("context")
            page = await context.new_page()
            lap.mark("page")
            await page.goto(start_url, wait_until="domcontentloaded")
            lap.mark("load")
            await page.screenshot()
            lap.mark("screenshot")
            await page.locator("body").aria_snapshot()
            lap.mark("snapshot")
            closing.append(asyncio.create_task(context.close()))
            if attempt:  # the first one warms the browser
                for name, seconds in lap.phases.items():
                    phases[name].append(seconds)
                phases["reset"].append(lap.total)
        await asyncio.gather(*closing)
        await browser.close()
    return {name: median_ms(samples) for name, samples in phases.items()}


class Lap:
    """Seconds between successive marks, by the name of the phase each ends."""

    def __init__(self) -> None:
        self.started = self.last = time.perf_counter()
        self.phases: dict[str, float] = {}

    def mark(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name], self.last = now - self.last, now

    @property
    def total(self) -> float:
        return self.last - self.started


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resets", type=int, default=30)
    parser.add_argument("--env-id", default=ENV_ID, help="the task (default: form-v0)")
    parser.add_argument("--obs-mode", default="both", choices=["both", "text"])
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    run: Coroutine[Any, Any, dict[str, float]] = floor(args.resets, args.env_id)
    figures = {"floor": asyncio.run(run), "ours": ours(args.env_id, args.resets, args.obs_mode)}
    figures["ratio"] = {"reset": round(figures["ours"]["reset"] / figures["floor"]["reset"], 2)}
    print(json.dumps(figures, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)


if __name__ == "__main__":
    main()
