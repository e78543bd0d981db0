"""The harness's own cost per step of an agent that drives the browser itself (CDP), against
``env.step`` with the same observation, in one run.

Same page and work as ``bench_step.py``: WebEval/form-v0's add-contact panel, the "VIP
customer" checkbox clicked again and again. The agent is a Playwright script connected
with ``connect_over_cdp`` through the episode's door, clicking at the checkbox's centre
(``page.mouse.click``). Its click costs it ``with_steps`` when each click is recorded as a
step (the page settles and is observed, the step goes through the env and its wrappers)
and ``without_steps`` through a door that records nothing; the difference is the
harness's own cost per agent step, which the claim compares with ``env.step`` of the
same click (it acts, settles and observes). Medians of alternating blocks.

Run: python benchmarks/bench_cdp.py [--steps 30] [--rounds 3] [--obs-mode text]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import gymnasium as gym
from door_modes import env_steps, open_form, run_modes  # benchmarks/, run as a script
from playwright.async_api import async_playwright

from webharness.browser.shared import keep_browser
from webharness.cdp.door import CdpDoor

ENV_ID = "WebEval/form-v0"


async def agent_clicks(env: gym.Env, steps: int, record: bool) -> list[float]:
    """Seconds per click of a Playwright script through the episode's door."""
    _, (x, y) = await asyncio.to_thread(open_form, env)
    door = CdpDoor(env) if record else CdpDoor(env, record=lambda step: False)
    url = await asyncio.to_thread(door.open)
    times = []
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.connect_over_cdp(url)
            page = browser.contexts[0].pages[0]
            await page.mouse.click(x, y)  # warm the connection
            for _ in range(steps):
                started = time.perf_counter()
                await page.mouse.click(x, y)
                times.append(time.perf_counter() - started)
            await browser.close()
    finally:
        await asyncio.to_thread(door.close)
    return times


async def run(steps: int, rounds: int, obs_mode: str) -> dict[str, Any]:
    env = gym.make(ENV_ID, cdp=True, obs_mode=obs_mode, max_steps=100_000)
    step_times: list[float] = []
    with_steps: list[float] = []
    without_steps: list[float] = []
    try:
        await asyncio.to_thread(env_steps, env, 5)  # launch, warm
        for _ in range(rounds):
            step_times += await asyncio.to_thread(env_steps, env, steps)
            with_steps += await agent_clicks(env, steps, record=True)
            without_steps += await agent_clicks(env, steps, record=False)
    finally:
        env.close()
    step_ms = statistics.median(step_times) * 1000
    with_ms = statistics.median(with_steps) * 1000
    without_ms = statistics.median(without_steps) * 1000
    return {
        "obs_mode": obs_mode,
        "env_step_ms": round(step_ms, 1),
        "agent_click_with_steps_ms": round(with_ms, 1),
        "agent_click_without_steps_ms": round(without_ms, 1),
        "harness_cost_per_step_ms": round(with_ms - without_ms, 1),
        "harness_cost_over_step": round((with_ms - without_ms) / step_ms, 3),
        "samples": len(step_times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--obs-mode", action="append", choices=["text", "both"])
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with keep_browser(cdp=True):
        run_modes(lambda mode: run(args.steps, args.rounds, mode), args.obs_mode, args.json)


if __name__ == "__main__":
    main()
