"""Steps per busy core-second of ``gymnasium.make_vec`` for an RL loop: N envs in one process
(``vectorization_mode="sync"``) against N processes (``"async"``), N = 1, 2, 4.

Each sub-env plays a MiniWoB++ task (``click-checkboxes``, as RL work on MiniWoB++ does)
with a seeded random agent: a click on one of the refs of its observation, up to the
task's step budget, episode after episode (Gymnasium's autoreset). A step is one sub-env's
action with its observation; resets are counted in the time, not as steps. Busy time is
the whole machine's (``/proc/stat``: every process, the browsers included), so run it on a
quiet machine.

Run: python benchmarks/bench_vec.py [--steps 300] [--obs-mode text] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from typing import Any

import gymnasium as gym
import numpy as np

import webharness  # noqa: F401  (registers the envs)

ENV_ID = "WebEval/miniwob.click-checkboxes-v0"
REF = re.compile(r"\[ref=(e\d+)\]")


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since boot."""
    values = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    return (sum(values) - values[3] - values[4]) / 100  # less idle and iowait; USER_HZ


def play(mode: str, num_envs: int, steps: int, obs_mode: str) -> dict[str, Any]:
    """``steps`` sub-env steps of the random agent in a vector env; the figures."""
    envs = gym.make_vec(
        ENV_ID,
        num_envs=num_envs,
        vectorization_mode=mode,
        obs_mode=obs_mode,
        viewport=(332, 214),  # MiniWoB++'s task area, as the peers' benchmarks use
    )
    rng = np.random.default_rng(0)
    try:
        obs, _ = envs.reset(seed=list(range(num_envs)))
        for _ in range(5):  # warm every sub-env's browser
            obs, *_ = envs.step(np.array(actions(obs, num_envs, rng), dtype=object))
        played = episodes = 0
        resetting = np.zeros(num_envs, dtype=bool)
        cpu, started = busy_seconds(), time.perf_counter()
        while played < steps:
            obs, _, terminated, truncated, _ = envs.step(
                np.array(actions(obs, num_envs, rng), dtype=object)
            )
            played += int((~resetting).sum())  # an autoreset step is a reset, not a step
            ended = (terminated | truncated) & ~resetting
            episodes += int(ended.sum())
            resetting = ended
        wall, busy = time.perf_counter() - started, busy_seconds() - cpu
    finally:
        envs.close()
    return {
        "mode": mode,
        "envs": num_envs,
        "steps": played,
        "episodes": episodes,
        "wall_s": round(wall, 2),
        "steps_per_s": round(played / wall, 2),
        "busy_cores": round(busy / wall, 2),
        "steps_per_busy_core_s": round(played / busy, 2),
    }


def actions(obs: dict[str, Any], num_envs: int, rng: np.random.Generator) -> list[str]:
    """A click on a random ref of each sub-env's tree (``noop()`` where it shows none)."""
    chosen = []
    for tree in obs["axtree"][:num_envs]:
        refs = REF.findall(str(tree))
        chosen.append(f"click({rng.choice(refs)!r})" if refs else "noop()")
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="sub-env steps per configuration")
    parser.add_argument("--obs-mode", default="text", choices=["text", "both"])
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    figures = [
        play(mode, num_envs, args.steps, args.obs_mode)
        for num_envs in (1, 2, 4)
        for mode in ("sync", "async")
    ]
    for row in figures:
        print(json.dumps(row))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)


if __name__ == "__main__":
    main()
