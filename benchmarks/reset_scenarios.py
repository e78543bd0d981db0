"""Reset time of every built-in scenario: the per-scenario table of issue #45.

Each scenario in turn: one env, a first reset (its browser and caches warmed), then
``--resets`` back-to-back resets with a ``noop()`` step before each, screenshots on; the
median of those resets, in ms. One browser serves the whole run (``keep_browser``), as in
a process that plays scenario after scenario.

Compare two versions of the code in runs side by side (alternate them): the figures move
with the machine's pace by more than most changes do.

Run: python benchmarks/reset_scenarios.py [--resets 12] [--obs-mode both] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import gymnasium as gym

import webharness


def scenario_resets(resets: int, obs_mode: str) -> tuple[dict[str, float], set[str]]:
    """Median reset (ms) of each built-in scenario, by its short name; and the scenarios
    whose resets all restarted in place (``restart_in_place``), not loading the page."""
    medians: dict[str, float] = {}
    in_place: set[str] = set()
    with webharness.keep_browser():
        for name in webharness.task_names():
            env = gym.make(f"WebEval/{name}-v0", obs_mode=obs_mode, max_steps=resets + 1)
            try:
                env.reset(seed=0)
                times, restarts = [], 0
                for seed in range(1, resets + 1):
                    env.step("noop()")
                    started = time.perf_counter()
                    env.reset(seed=seed)
                    times.append((time.perf_counter() - started) * 1000)
                    restarts += "restart" in env.unwrapped.last_timings_ms
            finally:
                env.close()
            medians[name] = round(statistics.median(times), 1)
            if restarts == resets:
                in_place.add(name)
    return medians, in_place


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resets", type=int, default=12)
    parser.add_argument("--obs-mode", default="both", choices=["both", "text"])
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    medians, in_place = scenario_resets(args.resets, args.obs_mode)
    for name, ms in medians.items():
        print(f"{name:12s} {ms:7.1f} ms" + ("  (in place)" if name in in_place else ""))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(medians, out, indent=1)


if __name__ == "__main__":
    main()
