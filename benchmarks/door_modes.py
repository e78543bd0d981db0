"""What the door benchmarks share (``bench_mcp.py``, ``bench_cdp.py``): the page and the
click they time through ``env.step``, and one run per observation mode, the figures
printed as JSON and written where ``--json`` says."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any

import gymnasium as gym


def run_modes(
    run: Callable[[str], Coroutine[Any, Any, dict[str, Any]]],
    modes: list[str] | None,
    json_path: str | None,
) -> None:
    """``run(mode)`` for each observation mode (default: both, then text); the figures."""
    figures = [asyncio.run(run(mode)) for mode in modes or ["both", "text"]]
    print(json.dumps(figures, indent=2))
    if json_path:
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=2)


def open_form(env: gym.Env) -> tuple[str, tuple[float, float]]:
    """Reset form-v0 (seed 0) and open the add-contact panel: the "VIP customer" checkbox's
    ref and centre."""
    _, info = env.reset(seed=0)
    new = info["semantic_state"].find("button", "New contact")[0].ref
    info = env.step(f"click({new!r})")[4]
    box = info["semantic_state"].find("checkbox", "VIP customer")[0]
    x, y, width, height = box.bbox
    return box.ref, (x + width / 2, y + height / 2)


def env_steps(env: gym.Env, steps: int) -> list[float]:
    """Seconds per ``env.step`` click of the checkbox."""
    checkbox, _ = open_form(env)
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        env.step(f"click({checkbox!r})")
        times.append(time.perf_counter() - started)
    return times
