"""A soak of CDP episodes: nothing grows from one to the next.

Each episode resets ``WebEval/form-v0`` (``cdp=True``), opens the episode's door, lets a
Playwright script connect with ``connect_over_cdp``, open the add-contact panel and type
a name, and closes the door. Every ``--every`` episodes it records this
process's resident memory and open files, the browser's process count, the browser
contexts and pages Playwright (the harness) holds, and the multiplexer's live sessions.

Run: python benchmarks/soak_cdp.py [--episodes 200] [--every 20] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from typing import Any

import gymnasium as gym
from playwright.async_api import async_playwright

from webharness.browser.process_tree import descendants
from webharness.browser.shared import keep_browser
from webharness.cdp.door import attach


def resident_mb() -> float:
    with open(f"/proc/{os.getpid()}/status", encoding="ascii") as status:
        line = next(x for x in status if x.startswith("VmRSS:"))
    return round(int(line.split()[1]) / 1024, 1)


async def episode(env: gym.Env, seed: int) -> None:
    await asyncio.to_thread(env.reset, seed=seed)
    async with attach(env) as url, async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(url)
        page = browser.contexts[0].pages[0]
        await page.get_by_role("button", name="New contact").click()
        await page.get_by_role("textbox", name="Full name").fill(f"Soak {seed}")
        await browser.close()


def sample(env: gym.Env, done: int) -> dict[str, Any]:
    host = env.unwrapped.runtime.host
    browser = host.run(host.browser(), 30)
    return {
        "episodes": done,
        "python_rss_mb": resident_mb(),
        "open_files": len(os.listdir(f"/proc/{os.getpid()}/fd")),
        "browser_processes": len(descendants()),
        "harness_contexts": len(browser.contexts),
        "harness_pages": sum(len(c.pages) for c in browser.contexts),
        "mux_sessions": len(host.mux._owners) if host.mux is not None else 0,
    }


async def soak(episodes: int, every: int) -> list[dict[str, Any]]:
    env = gym.make("WebEval/form-v0", cdp=True, obs_mode="text")
    samples = []
    try:
        for i in range(1, episodes + 1):
            await episode(env, i)
            if i % every == 0:
                samples.append(await asyncio.to_thread(sample, env, i))
                print(json.dumps(samples[-1]), flush=True)
    finally:
        env.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--every", type=int, default=20)
    parser.add_argument("--json", help="also write the samples to this file")
    args = parser.parse_args()
    with keep_browser(cdp=True):
        samples = asyncio.run(soak(args.episodes, args.every))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(samples, f, indent=2)


if __name__ == "__main__":
    main()
