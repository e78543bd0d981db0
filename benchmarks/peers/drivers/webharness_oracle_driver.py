"""webharness's oracle over built-in scenarios, for ``bench_per_core.py``; run with our
interpreter. The plan (JSON on stdin) names the env ids, the seeds and the observation
mode (``both``: screenshot and tree; ``text``). One env per scenario, episodes played with
``play_episode`` and no recorder (the runner's trace writing, golden traces and report are
``bench_runner.py``'s). Prints one JSON line: every episode, as the random agent's
drivers print theirs (``step_ms`` holds one entry per step, untimed: 0)."""

from __future__ import annotations

import json
import sys
import time

import gymnasium as gym

import webharness
from webharness.golden.oracle import OracleAgent
from webharness.golden.play import play_episode


def main() -> None:
    plan = json.load(sys.stdin)
    episodes = []
    with webharness.keep_browser():
        for env_id in plan["tasks"]:
            env = gym.make(env_id, obs_mode=plan["obs_mode"])
            try:
                for seed in plan["seeds"]:
                    started = time.perf_counter()
                    trace = play_episode(
                        env, OracleAgent(), seed, screenshots=plan["obs_mode"] != "text"
                    )
                    episodes.append(
                        {
                            "task": env_id,
                            "seed": seed,
                            "ms": round((time.perf_counter() - started) * 1000, 1),
                            "step_ms": [0] * len(trace.actions),
                            "success": bool(trace.end and trace.end.success),
                        }
                    )
            finally:
                env.close()
    print(json.dumps({"library": "webharness-oracle", "episodes": episodes, "error_count": 0}))


if __name__ == "__main__":
    main()
