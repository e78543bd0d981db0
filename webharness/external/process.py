"""An external agent's process, ended with everything it started.

It is started in a process group of its own, its output kept in files, and waited for
within a wall-time budget.

The group is what makes "nothing left behind" hold: an agent that starts a browser, a
language server or a shell of its own puts them in its group, and ``stop`` ends the group,
not only the process it was given.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import TracebackType

from webharness.apps import guard
from webharness.browser.process_tree import end_group
from webharness.errors import ConfigError

STOP_GRACE_S = 3.0  # between SIGTERM to the group and SIGKILL
OUTPUT_TAIL_CHARS = 4_000  # of stdout, read for the agent's last line


class Exit(str, Enum):
    """How the agent's process ended."""

    EXITED = "exited"  # by itself, with status 0
    FAILED = "failed"  # by itself, with a non-zero status
    KILLED = "killed"  # by a signal it did not get from us (a crash, an OOM kill)
    TIMED_OUT = "timed_out"  # the budget ran out; we ended it
    STOPPED = "stopped"  # the harness ended it before it finished (the episode was over)


@dataclass(frozen=True)
class ProcessEnd:
    """The process's end: how, its status, and how long it ran."""

    exit: Exit
    status: int | None  # the exit status, or minus the signal's number
    seconds: float

    def describe(self) -> str:
        """The end in words, for the episode's record."""
        if self.exit is Exit.KILLED and self.status is not None:
            return f"the agent's process was killed by {signal.Signals(-self.status).name}"
        if self.exit is Exit.TIMED_OUT:
            return f"the agent's process ran past its budget ({self.seconds:.0f} s) and was ended"
        return f"the agent's process {self.exit.value} with status {self.status}"


class AgentProcess:
    """One run of an agent's command.

    Args:
        argv: the command's words, placeholders filled.
        env: its environment.
        folder: where ``agent.stdout`` and ``agent.stderr`` are written.
        cwd: its working folder (default: this process's).
    """

    def __init__(
        self, argv: list[str], env: dict[str, str], folder: Path, cwd: Path | None = None
    ) -> None:
        self.argv, self.env, self.cwd = argv, env, cwd
        self.stdout_path = folder / "agent.stdout"
        self.stderr_path = folder / "agent.stderr"
        self._process: subprocess.Popen[bytes] | None = None
        self._started = 0.0
        self._ended: ProcessEnd | None = None
        self._exited = threading.Event()
        self._wakes: list[threading.Event] = []
        self._lock = threading.Lock()

    def start(self) -> AgentProcess:
        """Start the command in a new process group.

        Raises:
            ConfigError: the program cannot be started (gone since the run was checked).
        """
        self.stdout_path.parent.mkdir(parents=True, exist_ok=True)
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            try:
                self._process = subprocess.Popen(
                    self.argv, env=self.env, cwd=self.cwd, stdin=subprocess.DEVNULL,
                    stdout=out, stderr=err, start_new_session=True,
                )  # fmt: skip
            except OSError as exc:
                raise ConfigError(
                    "command", " ".join(self.argv), f"cannot be started: {exc.strerror or exc}"
                ) from None
        self._started = time.monotonic()
        guard.watch(self)
        threading.Thread(target=self._watch_exit, daemon=True).start()
        return self

    def _watch_exit(self) -> None:
        """Wait for the process to end, then wake whoever waits for it."""
        self._require().wait()
        self._exited.set()
        with self._lock:
            for wake in self._wakes:
                wake.set()

    @property
    def running(self) -> bool:
        """Whether the process has not ended yet."""
        return self._process is not None and self._process.poll() is None

    def wait(self, until: float, wake: threading.Event) -> bool:
        """Wait for the process's end, ``wake`` or the monotonic time ``until``; True if it ended.

        Someone sets ``wake`` when the episode ends or the client leaves; the process's own
        end sets it too. Nothing is stopped here: ``stop`` does it.
        """
        with self._lock:
            self._wakes.append(wake)
        if self._exited.is_set():
            return True
        wake.wait(timeout=max(0.0, until - time.monotonic()))
        return self._exited.is_set()

    def stop(self, why: Exit = Exit.STOPPED) -> ProcessEnd:
        """End the group (SIGTERM, then SIGKILL) and say how the process ended.

        By itself if it had already, else ``why``. Safe to call twice.
        """
        with self._lock:
            if self._ended is not None:
                return self._ended
            process = self._require()
            status = process.poll()
            end_group(process, signal.SIGTERM, STOP_GRACE_S)
            guard.unwatch(self)
            seconds = time.monotonic() - self._started
            self._ended = ProcessEnd(_exit_of(status, why), process.returncode, seconds)
            return self._ended

    def last_line(self) -> str | None:
        """The last non-empty line the process wrote to stdout, if any."""
        try:
            with self.stdout_path.open("rb") as out:
                size = out.seek(0, 2)
                out.seek(max(0, size - OUTPUT_TAIL_CHARS))
                tail = out.read().decode("utf-8", errors="replace")
        except OSError:
            return None
        lines = [line.strip() for line in tail.splitlines() if line.strip()]
        return lines[-1] if lines else None

    def _require(self) -> subprocess.Popen[bytes]:
        if self._process is None:
            raise RuntimeError("the agent's process was not started: call start() first")
        return self._process

    def __enter__(self) -> AgentProcess:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._process is not None:
            self.stop()


def _exit_of(status: int | None, why: Exit) -> Exit:
    """How a process ended: ``status`` is its status before we signalled it (None: alive)."""
    if status is None:
        return why
    if status < 0:
        return Exit.KILLED
    return Exit.EXITED if status == 0 else Exit.FAILED
