"""``webharness report`` and ``webharness score``: a run's report, and scoring saved traces
offline."""

from __future__ import annotations

import argparse
from typing import Any

from webharness.cli.arguments import TASKS_HELP
from webharness.runner import RunFolder
from webharness.runner.task_selection import select_tasks


def add_parsers(sub: Any) -> None:
    """The ``report`` and ``score`` commands, on the ``webharness`` parser's subcommands."""
    report = sub.add_parser("report", help="write the report of a run folder")
    report.add_argument("run")
    report.set_defaults(func=_cmd_report)
    score = sub.add_parser("score", help="score a run's or a RecordTrace folder's traces")
    score.add_argument("run", help="a run folder, or a folder RecordTrace wrote")
    score.add_argument("--tasks", help="task folders to register first: " + TASKS_HELP)
    score.set_defaults(func=_cmd_score)


def _cmd_report(args: argparse.Namespace) -> int:
    """Write summary.json, report.md and report.html for a run folder."""
    from webharness.runner import report_run

    paths = report_run(RunFolder.existing(args.run))
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    """Re-score a run's saved traces offline (alignment + failure codes), without a browser;
    or score a RecordTrace folder's episodes (recording its golden traces the first time)."""
    from webharness.reporting.render import format_summary_table
    from webharness.reporting.summary import summarize
    from webharness.runner import score_run
    from webharness.runner.trace_folder import is_trace_folder, score_trace_folder

    if args.tasks:
        select_tasks(args.tasks)  # registers the folders the traces' tasks come from
    folder = RunFolder(args.run)
    if not folder.results.is_file() and is_trace_folder(folder.root):
        attempts = score_trace_folder(folder.root)
    else:
        attempts = score_run(RunFolder.existing(args.run))
    out = folder.write_rescored(attempts)
    print(format_summary_table(summarize(attempts, folder.price_table())))
    print(f"re-scored attempts: {out}")
    return 0
