"""Step and reset speed of WebEvalEnv against the raw Playwright floor, in one run.

Same page (WebEval/form-v0's contacts page), same work per step: click the "VIP customer"
checkbox, then observe; by its ref and, alternately, by pixels (a ``mouse_click`` at its
centre, as a computer-use agent clicks), so the two step costs come from one run. The
floor is what a bare Playwright script pays for that work: a locator click, a PNG
screenshot and an aria snapshot. A reset is set beside the floor's (``reset_phases.py``:
a new context with the site routed, a new page, the start page loaded, the first
screenshot and aria snapshot). Ours restarts the page in place (``restart_in_place``:
``reset_ms``); after an episode that followed a link it loads the page anew
(``reset_load_ms``). Ratios, not absolute times, are the claim: the machine is shared and
noisy.

Run: python benchmarks/bench_step.py [--steps 40] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

import gymnasium as gym
from playwright.async_api import async_playwright
from reset_phases import floor as floor_reset  # benchmarks/, run as a script

import webharness  # noqa: F401  (registers the envs)
from webharness.browser.host import LAUNCH_ARGS, find_chromium

ENV_ID = "WebEval/form-v0"


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def open_form(env: gym.Env, seed: int) -> tuple[str, str]:
    """Reset and open the add-contact panel; the VIP checkbox's click by ref and by pixels
    (a ``mouse_click`` at its centre)."""
    _, info = env.reset(seed=seed)
    new = info["semantic_state"].find("button", "New contact")[0].ref
    _, _, _, _, info = env.step(f"click({new!r})")
    box = info["semantic_state"].find("checkbox", "VIP customer")[0]
    x, y, width, height = box.bbox
    return f"click({box.ref!r})", f"mouse_click({x + width / 2}, {y + height / 2})"


def bench_env(obs_mode: str, steps: int) -> dict[str, float]:
    env = gym.make(ENV_ID, obs_mode=obs_mode, max_steps=2 * steps + 10)
    try:
        open_form(env, seed=0)  # launch the browser, warm caches
        resets, loads, step_times, pixel_times = [], [], [], []
        for episode in range(1, 17):  # back to back, as an agent that does not think
            started = time.perf_counter()
            env.reset(seed=episode)
            resets.append(time.perf_counter() - started)
            for _ in range(3):
                env.step("noop()")
        for episode in range(17, 33):  # each after a link followed: the page loads anew
            _, info = env.reset(seed=episode)
            link = info["semantic_state"].find("link", "Companies")[0].ref
            env.step(f"click({link!r})")  # href="#": a history entry of the page's own
            started = time.perf_counter()
            env.reset(seed=episode)
            loads.append(time.perf_counter() - started)
        by_ref, by_pixels = open_form(env, seed=99)
        # A ref click and a pixel click, alternately, in the order ref, pixel, pixel, ref:
        # each click toggles the checkbox, so each kind checks it as often as it unchecks
        # it (a strict alternation had every pixel click unchecking it).
        for i in range(2 * steps):
            by_ref_now = i % 4 in (0, 3)
            started = time.perf_counter()
            env.step(by_ref if by_ref_now else by_pixels)
            (step_times if by_ref_now else pixel_times).append(time.perf_counter() - started)
        return {
            "reset_ms": median_ms(resets),
            "reset_load_ms": median_ms(loads),
            "step_ms": median_ms(step_times),
            "pixel_step_ms": median_ms(pixel_times),
        }
    finally:
        env.close()


async def bench_floor(steps: int) -> dict[str, float]:
    """Raw Playwright doing the same work on the same page, served the same way."""
    env = gym.make(ENV_ID, obs_mode="text")
    env.reset(seed=99)  # reuse our router only to get the page HTML served identically
    episode = env.unwrapped.episode
    site = episode.site
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_chromium(), args=list(LAUNCH_ARGS))
        context = await browser.new_context(viewport={"width": 1280, "height": 720})
        from webharness.browser.site import SiteRouter

        router = SiteRouter()
        router.episode = site
        await context.route("**/*", router.handle)
        page = await context.new_page()
        await page.goto(f"{site.origin}/index.html")
        await page.get_by_role("button", name="New contact").click()
        checkbox = page.get_by_role("checkbox", name="VIP customer")
        times = []
        for _ in range(steps):
            started = time.perf_counter()
            await checkbox.click()
            await page.screenshot()
            await page.locator("body").aria_snapshot()
            times.append(time.perf_counter() - started)
        await browser.close()
    env.close()
    return {"step_ms": median_ms(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    floor = asyncio.run(bench_floor(args.steps))
    floor_reset_ms = asyncio.run(floor_reset(16))["reset"]
    both = bench_env("both", args.steps)
    text = bench_env("text", args.steps)
    results: dict[str, Any] = {
        "floor_step_ms": floor["step_ms"],
        "step_ms": both["step_ms"],
        "text_step_ms": text["step_ms"],
        "reset_ms": both["reset_ms"],
        "floor_reset_ms": floor_reset_ms,
        "reset_vs_floor": round(both["reset_ms"] / floor_reset_ms, 2),
        "reset_load_ms": both["reset_load_ms"],
        "reset_load_vs_floor": round(both["reset_load_ms"] / floor_reset_ms, 2),
        "step_vs_floor": round(both["step_ms"] / floor["step_ms"], 2),
        "pixel_step_ms": both["pixel_step_ms"],
        "pixel_vs_ref_step": round(both["pixel_step_ms"] / both["step_ms"], 2),
        "text_pixel_vs_ref_step": round(text["pixel_step_ms"] / text["step_ms"], 2),
    }
    for key, value in results.items():
        print(f"{key:16s} {value}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(results, out, indent=2)


if __name__ == "__main__":
    main()
