"""Where webharness's step and reset time goes, and what the parts would cost done otherwise.

Not a change to webharness: it reads ``env.unwrapped.last_timings_ms`` (action / settle /
snapshot / screenshot splits) over many steps, then times the pieces one by one on the
same live page — the driver round trip, the in-page snapshot, the screenshot variants
Chromium offers, the Python-side state model and fingerprint, the route interception
of an external site's subresources — and the memory of one env's processes by kind.
Every figure is a median, with the load average when it was taken.

Run: python benchmarks/peers/profile_webharness.py [--steps 40] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import glob
import io
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
from protocol import process_tree, pss_mb, rss_mb  # noqa: E402

import webharness  # noqa: E402,F401
from webharness.semantic import SemanticState  # noqa: E402
from webharness.spec.task_spec import instantiate  # noqa: E402

ENV_ID = "WebEval/form-v0"


def med(samples: list[float]) -> float:
    return round(statistics.median(samples), 2)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def open_form(env: gym.Env, seed: int) -> str:
    _, info = env.reset(seed=seed)
    new = info["semantic_state"].find("button", "New contact")[0].ref
    _, _, _, _, info = env.step(f"click({new!r})")
    return info["semantic_state"].find("checkbox", "VIP customer")[0].ref


def step_splits(obs_mode: str, steps: int) -> dict[str, Any]:
    """``last_timings_ms`` of element-click steps and of resets, medians per part."""
    env = gym.make(ENV_ID, obs_mode=obs_mode, max_steps=steps + 10)
    try:
        open_form(env, 0)
        resets: list[dict[str, float]] = []
        reset_wall: list[float] = []
        for episode in range(1, 9):
            started = time.perf_counter()
            env.reset(seed=episode)
            reset_wall.append((time.perf_counter() - started) * 1000)
            resets.append(env.unwrapped.last_timings_ms)
            for _ in range(3):  # the agent's steps: the pre-warm finishes meanwhile
                env.step("noop()")
        checkbox = open_form(env, 99)
        splits: list[dict[str, float]] = []
        wall: list[float] = []
        for _ in range(steps):
            started = time.perf_counter()
            env.step(f"click({checkbox!r})")
            wall.append((time.perf_counter() - started) * 1000)
            splits.append(env.unwrapped.last_timings_ms)
        parts = sorted({k for s in splits for k in s})
        step = {k: med([s.get(k, 0.0) for s in splits]) for k in parts}
        step["wall"] = med(wall)
        step["outside_episode_step"] = round(
            step["wall"] - step.get("step", 0.0), 2
        )  # thread hop, parse, info
        reset_parts = sorted({k for s in resets for k in s})
        reset = {k: med([s.get(k, 0.0) for s in resets]) for k in reset_parts}
        reset["wall"] = med(reset_wall)
        return {"obs_mode": obs_mode, "step_ms": step, "reset_ms": reset, "load": load()}
    finally:
        env.close()


async def _timeit(fn: Callable[[], Awaitable[Any]], n: int) -> float:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - started) * 1000)
    return med(samples)


def pieces(n: int) -> dict[str, Any]:
    """The parts of a step, one at a time, on the form page with the panel open."""
    env = gym.make(ENV_ID, obs_mode="both")
    try:
        open_form(env, 5)
        unwrapped = env.unwrapped
        episode, runtime = unwrapped.episode, unwrapped.runtime
        page = episode.session.page
        agent = "window[Symbol.for('webharness.agent')]"

        async def measure() -> tuple[dict[str, float], dict[str, Any], str]:
            cdp = await page.context.new_cdp_session(page)

            async def shot(params: dict[str, Any], decode: bool) -> None:
                data = await cdp.send("Page.captureScreenshot", params)
                if decode:
                    np.asarray(
                        Image.open(io.BytesIO(base64.b64decode(data["data"]))).convert("RGB")
                    )

            raw = await page.evaluate(f"(o) => {agent}.snapshot(o)", {"minRef": 1})
            jpeg = (await cdp.send("Page.captureScreenshot", {"format": "jpeg", "quality": 90}))[
                "data"
            ]
            png = (await cdp.send("Page.captureScreenshot", {"format": "png"}))["data"]
            out = {
                "round_trip_evaluate_1": await _timeit(lambda: page.evaluate("1"), n),
                "settle_quiet_page": await _timeit(
                    lambda: page.evaluate(
                        f"(o) => {agent}.settle(o)", {"quietMs": 10, "capMs": 3000}
                    ),
                    n,
                ),
                "snapshot_evaluate": await _timeit(
                    lambda: page.evaluate(f"(o) => {agent}.snapshot(o)", {"minRef": 1}), n
                ),
                "snapshot_in_page_js": round(
                    await page.evaluate(
                        "() => { const t = performance.now();"
                        f" for (let i = 0; i < 20; i++) {agent}.snapshot({{minRef: 1}});"
                        " return (performance.now() - t) / 20; }"
                    ),
                    2,
                ),
                "mouse_click": await _timeit(lambda: page.mouse.click(5, 5), n),
                "screenshot_jpeg90_capture": await _timeit(
                    lambda: shot({"format": "jpeg", "quality": 90}, False), n
                ),
                "screenshot_jpeg90_capture_decode": await _timeit(
                    lambda: shot({"format": "jpeg", "quality": 90}, True), n
                ),
                "screenshot_jpeg90_optimize_for_speed": await _timeit(
                    lambda: shot({"format": "jpeg", "quality": 90, "optimizeForSpeed": True}, True),
                    n,
                ),
                "screenshot_jpeg70_decode": await _timeit(
                    lambda: shot({"format": "jpeg", "quality": 70}, True), n
                ),
                "screenshot_png_capture_decode": await _timeit(
                    lambda: shot({"format": "png"}, True), n
                ),
                "screenshot_png_optimize_for_speed": await _timeit(
                    lambda: shot({"format": "png", "optimizeForSpeed": True}, True), n
                ),
                "screenshot_playwright_png": await _timeit(lambda: page.screenshot(), n),
                "aria_snapshot_playwright": await _timeit(
                    lambda: page.locator("body").aria_snapshot(), n
                ),
            }
            out["jpeg90_kb"] = round(len(jpeg) * 3 / 4 / 1024, 1)
            out["png_kb"] = round(len(png) * 3 / 4 / 1024, 1)
            await cdp.detach()
            return out, raw, jpeg

        out, raw, jpeg = runtime.run(measure(), 300)
        # The Python side of an observation: the state model, its fingerprint (twice a step).
        full = {
            **raw["state"],
            "app": episode.backend.dump() if episode.backend else {},
            "blocked_requests": [],
        }
        state = SemanticState.model_validate(full)
        out["python_state_model_validate"] = _py_time(lambda: SemanticState.model_validate(full), n)
        out["python_fingerprint"] = _py_time(state.fingerprint, n)
        out["python_decode_jpeg90"] = _py_time(
            lambda: np.asarray(Image.open(io.BytesIO(base64.b64decode(jpeg))).convert("RGB")), n
        )
        spec = unwrapped.task_spec
        rng = np.random.default_rng(0)
        out["python_instantiate_spec"] = _py_time(lambda: instantiate(spec, 0, rng), n)
        out["elements_in_state"] = len(state.elements)
        out["axtree_chars"] = len(raw["axtree"])
        out["load"] = load()
        return out
    finally:
        env.close()


def _py_time(fn: Callable[[], Any], n: int) -> float:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return med(samples)


def route_cost(n: int) -> dict[str, Any]:
    """A MiniWoB++ page (HTML + 4 scripts/styles) loaded with and without a catch-all route
    that lets every request continue: the price of intercepting an external site."""
    import pages
    from playwright.async_api import async_playwright

    from webharness.browser.host import LAUNCH_ARGS, find_chromium

    found = glob.glob(
        str(HERE / ".venvs" / "miniwob" / "lib" / "python3*" / "site-packages" / "miniwob" / "html")
    )
    if not found:
        return {"skipped": "run setup.sh: the MiniWoB++ pages come from the miniwob package"}

    async def run(base: str) -> dict[str, float]:
        url = f"{base}/miniwob/click-checkboxes.html?autostart=1&seed=1"
        async with async_playwright() as p:
            browser = await p.chromium.launch(
                executable_path=find_chromium(), args=list(LAUNCH_ARGS)
            )
            results = {}
            for label, routed in (
                ("goto_no_route", False),
                ("goto_route_continue", True),
                ("goto_no_route_2", False),
                ("goto_route_continue_2", True),
            ):
                context = await browser.new_context(viewport={"width": 1280, "height": 720})
                if routed:
                    await context.route("**/*", lambda route: route.continue_())
                page = await context.new_page()
                await page.goto(url)  # warm the cache of the server, not of the browser
                results[label] = await _timeit(
                    lambda page=page: page.goto(url, wait_until="load"), n
                )
                await context.close()
            await browser.close()
        return {
            "goto_no_route": med([results["goto_no_route"], results["goto_no_route_2"]]),
            "goto_route_continue": med(
                [results["goto_route_continue"], results["goto_route_continue_2"]]
            ),
        }

    with pages.miniwob_server(Path(found[0])) as base:
        out = asyncio.run(run(base))
    out["load"] = load()
    return out


def memory_by_kind() -> dict[str, Any]:
    """PSS of one live env's processes (this one included), grouped by process kind."""
    env = gym.make(ENV_ID, obs_mode="both")
    try:
        open_form(env, 1)
        env.step("noop()")
        kinds: dict[str, float] = {}
        for pid in process_tree(os.getpid()):
            try:
                cmd = (
                    Path(f"/proc/{pid}/cmdline")
                    .read_bytes()
                    .replace(b"\0", b" ")
                    .decode(errors="replace")
                )
            except OSError:
                continue
            if "chromium" in cmd:
                kind = next(
                    (part.split("=", 1)[1] for part in cmd.split() if part.startswith("--type=")),
                    "browser",
                )
                kind = f"chromium {kind}"
            elif "node" in cmd.split(" ")[0]:
                kind = "playwright driver (node)"
            elif pid == os.getpid():
                kind = "python (this process)"
            else:
                kind = cmd.split(" ")[0].rsplit("/", 1)[-1]
            kinds[kind] = round(kinds.get(kind, 0.0) + pss_mb(pid), 1)
        total_rss = sum(rss_mb(p) for p in process_tree(os.getpid()))
        return {
            "pss_mb_by_kind": kinds,
            "pss_mb_total": round(sum(kinds.values()), 1),
            "rss_mb_total": round(total_rss, 1),
            "load": load(),
        }
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--json", default=str(HERE / "profile.json"))
    args = parser.parse_args()
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpus": os.cpu_count(),
        "load_start": load(),
    }
    report["splits_both"] = step_splits("both", args.steps)
    report["splits_text"] = step_splits("text", args.steps)
    report["pieces"] = pieces(max(10, args.steps // 2))
    report["route"] = route_cost(10)
    report["memory"] = memory_by_kind()
    report["load_end"] = load()
    Path(args.json).write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
