"""Ending a run cleanly on Ctrl-C (SIGINT) or SIGTERM: one line that says what is kept and
the exact command that continues the run, no traceback, no process left behind."""

from __future__ import annotations

import shlex
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType


class RunInterrupted(BaseException):
    """SIGTERM, raised in the main thread as Ctrl-C raises ``KeyboardInterrupt``: a
    ``BaseException`` like it, so the harness's ``except Exception`` blocks let it pass."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum


@contextmanager
def terminate_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises ``RunInterrupted`` (so cleanup runs, as on Ctrl-C).

    Only the main thread can install signal handlers; elsewhere the block changes nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        raise RunInterrupted(signum)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def exit_code(exc: BaseException) -> int:
    """The shell's code for a run ended by a signal: 128 + its number."""
    signum = exc.signum if isinstance(exc, RunInterrupted) else signal.SIGINT
    return 128 + int(signum)


def resume_command(argv: Sequence[str]) -> str:
    """The command line that continues an interrupted run: the same one, with ``--resume``.

    Example:
        >>> resume_command(["run", "--agents", "oracle", "--out", "runs/my run"])
        "webharness run --agents oracle --out 'runs/my run' --resume"
    """
    words = list(argv)
    if "--resume" not in words:
        words.append("--resume")
    return "webharness " + shlex.join(words)
