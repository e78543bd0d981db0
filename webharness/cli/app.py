"""The ``webharness`` command: its parser, and errors printed as one line naming what the
user typed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from webharness.cli import cache, mcp, record, results, run, tasks
from webharness.errors import ConfigError, WebHarnessError


class _Parser(argparse.ArgumentParser):
    """argparse, with each usage error as one ``webharness:`` line (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"webharness: {message} (see {self.prog} --help)\n")


def _usage_line(exc: ConfigError, args: argparse.Namespace) -> str:
    """A bad value as the user typed it: ``--seeds '5-1': the range '5-1' is empty...``, or
    ``task 'nosuch': ...`` for a positional argument; the error as it is when no argument
    the user gave holds the value."""
    for dest in (exc.field, exc.field.removesuffix("s")):
        typed = vars(args).get(dest)
        if dest in args.typed_as and typed is not None:
            if isinstance(typed, list):  # a repeated option: the one at fault
                typed = exc.value
            shown = repr(typed) if isinstance(typed, str) else str(typed)
            return f"{args.typed_as[dest]} {shown}: {exc.problem}"
    return str(exc)


def _name_arguments(command: argparse.ArgumentParser) -> None:
    """Keep, in the parsed namespace, how each argument of ``command`` is written: its
    option (``--tasks``) or, for a positional one, its name (``task``)."""
    written = {a.dest: (a.option_strings or [a.dest])[-1] for a in command._actions}
    command.set_defaults(typed_as=written)


def build_parser() -> argparse.ArgumentParser:
    """The ``webharness`` parser: one subcommand per command, each module adding its own."""
    parser = _Parser(prog="webharness", description="Web-agent environments and evaluation.")
    sub = parser.add_subparsers(dest="command", required=True)
    tasks.add_parsers(sub)
    run.add_parsers(sub)
    record.add_parsers(sub)
    cache.add_parsers(sub)
    results.add_parsers(sub)
    mcp.add_parsers(sub)
    for command in sub.choices.values():
        _name_arguments(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``webharness`` command on ``argv`` (default: ``sys.argv[1:]``); its exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv  # for the command that resumes an interrupted run
    try:
        return int(args.func(args))
    except ConfigError as exc:
        print(f"webharness: {_usage_line(exc, args)}", file=sys.stderr)
        return 2
    except WebHarnessError as exc:
        print(f"webharness: {exc}", file=sys.stderr)
        return 2
