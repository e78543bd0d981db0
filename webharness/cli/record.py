"""``webharness record``: recording a golden path from a person's input, or a script."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from webharness.cli.arguments import TASKS_HELP, seed
from webharness.errors import ConfigError, WebHarnessError
from webharness.runner.task_selection import one_task


def add_parsers(sub: Any) -> None:
    """The ``record`` command's arguments, on the ``webharness`` parser's subcommands."""
    record = sub.add_parser(
        "record", help="record a golden path from a person's actions (or a script)"
    )
    record.add_argument("task", nargs="?", help="its id or name (one of --tasks, if given)")
    record.add_argument("--tasks", help=TASKS_HELP)
    record.add_argument("--seed", type=seed, default=0)
    record.add_argument("--id", default="recorded", help="the golden path's id")
    record.add_argument(
        "--script", help="a YAML list of steps to play headless instead of a person"
    )
    record.add_argument("--out", help="write the YAML here instead of printing it")
    record.set_defaults(func=cmd_record)


def cmd_record(args: argparse.Namespace) -> int:
    """Record a golden path: a person's clicks and typing (headed), or a script of steps."""
    import os
    import shlex

    import gymnasium as gym
    import yaml

    from webharness.errors import BrowserError
    from webharness.golden.path_recorder import (
        record_golden_path,
        require_display,
        scripted_driver,
        to_yaml,
        window_failed,
    )

    command = shlex.join(["webharness", *args.argv])

    if args.script:
        try:
            steps = yaml.safe_load(Path(args.script).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise ConfigError("script", args.script, f"cannot be read: {exc}") from None
        if not isinstance(steps, list):
            raise WebHarnessError(
                f"{args.script}: a script is a YAML list of golden steps (action, target, value)"
            )
        drive, headless = scripted_driver(steps), True
    else:
        require_display(command, os.environ)
        drive, headless = person_drives, False
    if args.task is None and args.tasks is None:
        raise WebHarnessError("record: name the task: webharness record form, or --tasks ./mytask")
    env_id = one_task(args.task, args.tasks)
    env = gym.make(env_id, obs_mode="text", headless=headless, max_steps=1000)
    try:
        path = record_golden_path(env, args.seed, drive, path_id=args.id)
    except BrowserError as exc:
        failed = None if headless else window_failed(exc, command)
        if failed is None:
            raise
        raise failed from None
    finally:
        env.close()
    text = to_yaml(path)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"golden path written to {args.out}", file=sys.stderr)
    else:
        print(text, end="")
    return 0


def person_drives(env: object, info: dict) -> None:
    print(f"Task: {info['task'].instruction}", file=sys.stderr)
    input(
        "Do the task in the browser window (keep it open), then press Enter here to save "
        "the golden path... "
    )
