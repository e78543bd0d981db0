"""A live progress bar for runs: episodes done, ETA and the running success rate."""

from __future__ import annotations

import sys
from types import TracebackType

from tqdm import tqdm

from webharness.reporting.records import EvalAttempt


class Progress:
    """A tqdm bar on stderr, updated with each finished attempt.

    Example:
        >>> with Progress(len(jobs)) as progress:  # doctest: +SKIP
        ...     run_jobs(jobs, config, run_dir, on_result=progress.update)
    """

    def __init__(self, total: int, done: int = 0) -> None:
        """``total`` episodes in the whole grid, ``done`` of them already (a resumed run)."""
        self.bar = tqdm(
            total=total,
            initial=done,
            unit="ep",
            file=sys.stderr,
            dynamic_ncols=True,
            smoothing=0.1,
        )
        self.passed = self.executable = 0

    def update(self, attempt: EvalAttempt) -> None:
        """Count one finished attempt; the success rate leaves out not-executable ones."""
        if not attempt.not_executable:
            self.executable += 1
            self.passed += int(attempt.passed)
        rate = self.passed / self.executable if self.executable else 0.0
        self.bar.set_postfix_str(
            f"success {rate:.0%} · {attempt.runner} {attempt.scenario_id.removeprefix('WebEval/')}"
        )
        self.bar.update(1)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.bar.close()
