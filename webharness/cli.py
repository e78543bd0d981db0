"""The ``webharness`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from webharness.catalogue import get_task, task_names
from webharness.errors import WebHarnessError


def _cmd_list(args: argparse.Namespace) -> int:
    """Print the built-in scenarios with their categories."""
    specs = [get_task(name) for name in task_names()]
    if args.category:
        specs = [s for s in specs if s.category == args.category]
    width = max((len(s.env_id) for s in specs), default=0)
    for spec in specs:
        print(f"{spec.env_id:<{width}}  {spec.category:<20}  {spec.title}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    """Play the oracle through one scenario, printing each step and saving a screenshot."""
    import gymnasium as gym
    from PIL import Image

    from webharness.oracle import OracleAgent

    env = gym.make(get_task(args.task).env_id, render_mode="rgb_array")
    try:
        obs, info = env.reset(seed=args.seed)
        print(f"goal: {obs['goal']}")
        agent = OracleAgent()
        agent.reset(info["task"])
        terminated = truncated = False
        while not (terminated or truncated):
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            result = info["action_result"]
            status = "ok" if result.ok else f"{result.error.value}: {result.message}"
            print(f"step {info['step']:>2}  {action:<60}  {status}")
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(env.render()).save(out)
        print(f"success: {info['success']}  reward: {reward}  screenshot: {out}")
        return 0 if info["success"] else 1
    finally:
        env.close()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="webharness", description="Web-agent environments and evaluation.")
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="list the built-in scenarios")
    listing.add_argument("--category", help="only this category")
    listing.set_defaults(func=_cmd_list)
    demo = sub.add_parser("demo", help="play the oracle through one scenario and save a screenshot")
    demo.add_argument("task", nargs="?", default="form")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--out", default="runs/demo.png")
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except WebHarnessError as exc:
        print(f"webharness: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
