"""``webharness list`` and ``webharness demo``: the scenarios, and the oracle playing one."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from webharness.cli.arguments import TASKS_HELP, seed
from webharness.errors import ConfigError
from webharness.runner.task_selection import one_task, select_tasks
from webharness.spec.catalogue import get_task, task_ids


def add_parsers(sub: Any) -> None:
    """The ``list`` and ``demo`` commands, on the ``webharness`` parser's subcommands."""
    listing = sub.add_parser("list", help="list the scenarios: built-in and registered")
    listing.add_argument("--category", help="only this category")
    listing.add_argument("--tasks", help=TASKS_HELP)
    listing.set_defaults(func=_cmd_list)
    demo = sub.add_parser("demo", help="play the oracle through one scenario and save a screenshot")
    demo.add_argument("task", nargs="?", help="its id or name (default: form)")
    demo.add_argument("--tasks", help=TASKS_HELP)
    demo.add_argument("--seed", type=seed, default=0)
    demo.add_argument("--out", default="runs/demo.png")
    demo.set_defaults(func=_cmd_demo)


def _cmd_list(args: argparse.Namespace) -> int:
    """Print the scenarios (built-in and registered, or those of --tasks) with categories."""
    specs = [get_task(i) for i in (select_tasks(args.tasks) if args.tasks else task_ids())]
    if args.category:
        categories = sorted({s.category for s in specs})
        specs = [s for s in specs if s.category == args.category]
        if not specs:
            raise ConfigError(
                "category",
                args.category,
                f"no scenario has it; categories: {', '.join(categories)}",
            )
    width = max((len(s.env_id) for s in specs), default=0)
    for spec in specs:
        print(f"{spec.env_id:<{width}}  {spec.category:<20}  {spec.title}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    """Play the oracle through one scenario, printing each step and saving a screenshot."""
    import gymnasium as gym
    from PIL import Image

    from webharness.golden.oracle import OracleAgent

    env = gym.make(one_task(args.task, args.tasks, default="form"), render_mode="rgb_array")
    try:
        obs, info = env.reset(seed=args.seed)
        print(f"goal: {obs['goal']}")
        agent = OracleAgent()
        agent.reset(info["task"], env.unwrapped.task_spec)  # type: ignore[attr-defined]
        terminated = truncated = False
        while not (terminated or truncated):
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            result = info["action_result"]
            status = "ok" if result.ok else f"{result.error.value}: {result.message}"
            print(f"step {info['step']:>2}  {action:<60}  {status}")
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(np.asarray(env.render())).save(out)
        print(f"success: {info['success']}  reward: {reward}  screenshot: {out}")
        return 0 if info["success"] else 1
    finally:
        env.close()
