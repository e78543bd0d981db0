"""One running instance of a task's app (``AppSpec``).

Each instance has its own port, its own data folder, its own process group and its log;
it is ready when it answers, reset per episode, and stopped with everything it started.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

from webharness.apps import guard
from webharness.apps.ports import HOST, free_port
from webharness.apps.probe import describe, expected, status_of
from webharness.browser.process_tree import end_group
from webharness.errors import AppError
from webharness.spec.app_spec import AppSpec, CommandReset, HttpReset, fill_instance

__all__ = ["AppInstance"]

TAIL_LINES = 20  # of the app's output, in an error
_POLL_FIRST_S, _POLL_MAX_S = 0.02, 0.5  # the readiness poll's backoff


class AppInstance:
    """A task's app, started on a free port of 127.0.0.1 with a data folder of its own.

    Args:
        spec: the app's declaration (``TaskSpec.app``, or ``load_app(task_file)``).
        workdir: where the instance's folder (``data/`` and ``app.log``) is made; default a
            temporary folder, removed at ``stop``.
        keep: keep the data folder (and a temporary instance folder) after ``stop``.

    Example:
        >>> from webharness.spec.app_spec import AppSpec
        >>> spec = AppSpec(command="${PYTHON} -m http.server ${PORT} --bind 127.0.0.1")
        >>> with AppInstance(spec) as app:  # doctest: +SKIP
        ...     print(app.url)
        http://127.0.0.1:41023

    A task that declares its app is not given one by hand: ``WebEvalEnv`` starts an
    instance of its own on its first reset and stops it at ``close()``.
    """

    def __init__(self, spec: AppSpec, workdir: str | Path | None = None, keep: bool = False):
        self.spec, self.keep = spec, keep
        self._workdir = Path(workdir) if workdir is not None else None
        self._process: subprocess.Popen[bytes] | None = None
        self._root: Path | None = None
        self._port: int | None = None
        self._argv: list[str] = spec.argv  # filled at start

    # --- what a caller reads -------------------------------------------------------------
    @property
    def port(self) -> int:
        """The free port the instance was given at ``start`` (``${PORT}``).

        Raises:
            AppError: the instance has not been started.
        """
        if self._port is None:
            raise self._not_started()
        return self._port

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``: the value of ``${APP_URL}``."""
        return f"http://{HOST}:{self.port}"

    @property
    def variables(self) -> dict[str, str]:
        """Its ``${NAME}`` variables: ``APP_URL``, for tasks that name the app with it.

        This serves tasks that use the app without declaring it; a task that declares it
        is bound by its env instead.
        """
        return {"APP_URL": self.url}

    @property
    def folder(self) -> Path:
        """The instance's own folder: ``data/`` (``${DATA_DIR}``) and ``app.log``."""
        if self._root is None:
            raise self._not_started()
        return self._root

    @property
    def data_dir(self) -> Path:
        """The app's data folder (``${DATA_DIR}``), removed at ``stop`` unless ``keep``."""
        return self.folder / "data"

    @property
    def log_path(self) -> Path:
        """The file the app's standard output and error go to; its tail names app errors."""
        return self.folder / "app.log"

    @property
    def pid(self) -> int | None:
        """The app's process (the leader of its process group), while it runs."""
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        """Whether the app's process is started and has not exited."""
        return self._process is not None and self._process.poll() is None

    @property
    def command(self) -> str:
        """The command as it runs (its instance variables filled once started)."""
        return shlex.join(self._argv)

    # --- the lifecycle -------------------------------------------------------------------
    def start(self) -> AppInstance:
        """Start the app and wait until it is ready.

        Raises:
            AppError: it cannot be started, exits, or is not ready within
                ``ready.timeout_s``; naming the command and its last lines of output. The
                instance is stopped and cleaned up before.
        """
        if self._process is not None:
            return self
        self._port = free_port()
        if self._workdir is not None:
            self._workdir.mkdir(parents=True, exist_ok=True)
        self._root = Path(tempfile.mkdtemp(prefix="webharness-app-", dir=self._workdir))
        try:
            self._copy_data()
        except OSError as exc:
            self._cleanup()
            raise self._error(f"cannot have its data copied ({exc})", []) from None
        self._argv = [fill_instance(arg, self._values()) for arg in self.spec.argv]
        with open(self.log_path, "ab") as log:
            try:
                self._process = subprocess.Popen(
                    self._argv, cwd=self.spec.cwd, env=self._env(), stdin=subprocess.DEVNULL,
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                )  # fmt: skip
            except OSError as exc:
                self._cleanup()
                raise self._error(f"cannot be started ({exc.strerror or exc})", []) from None
        guard.watch(self)
        try:
            self._wait_ready(self._process)
        except AppError:
            self.stop()
            raise
        return self

    def reset(self) -> None:
        """Bring the app back to its start state (the declared ``reset``; none: nothing).

        Raises:
            AppError: the app is not running, the call answers another status or no status
                within its bound, or the command fails; naming it and the app's last lines.
        """
        self._check_running("cannot be reset")
        reset = self.spec.reset
        if isinstance(reset, HttpReset):
            self._reset_http(reset)
        elif isinstance(reset, CommandReset):
            self._reset_command(reset)

    def stop(self) -> None:
        """Stop the app's whole process group, and remove its data unless ``keep``.

        The group gets the declared signal, ``stop.grace_s`` to exit, then SIGKILL.
        Stopping again does nothing.
        """
        process, self._process = self._process, None
        if process is None:
            return
        try:
            self._end_group(process)
        finally:
            guard.unwatch(self)
            self._cleanup()

    def __enter__(self) -> AppInstance:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.url if self._port is not None else "not started"
        return f"AppInstance({self.command!r}, {where}, running={self.running})"

    # --- the parts -----------------------------------------------------------------------
    def _values(self) -> dict[str, str]:
        return {
            "PORT": str(self.port),
            "DATA_DIR": str(self.data_dir),
            "APP_URL": self.url,
            "PYTHON": sys.executable,
        }

    def _env(self) -> dict[str, str]:
        values = self._values()
        own = {name: fill_instance(value, values) for name, value in self.spec.env.items()}
        exported = {k: values[k] for k in ("PORT", "DATA_DIR", "APP_URL")}
        return {"PYTHONUNBUFFERED": "1", **os.environ, **own, **exported}

    def _copy_data(self) -> None:
        data = self.spec.data
        if data is None or not Path(data).is_dir():
            self.data_dir.mkdir()
        if data is not None and Path(data).is_dir():
            shutil.copytree(data, self.data_dir)
        elif data is not None:
            shutil.copy2(data, self.data_dir)

    def _resolve(self, url: str) -> str:
        filled = fill_instance(url, self._values())
        return self.url + filled if filled.startswith("/") else filled

    def _wait_ready(self, process: subprocess.Popen[bytes]) -> None:
        """Poll the readiness URL until it answers the status, backing off, bounded.

        The waits between polls end early when the app exits.
        """
        ready = self.spec.ready
        url, wait = self._resolve(ready.url), _POLL_FIRST_S
        deadline = time.monotonic() + ready.timeout_s
        last = "no answer"
        while True:
            if process.poll() is not None:
                raise self._error(f"exited with status {process.returncode} before it was ready")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._error(f"was not ready within {ready.timeout_s:g} s ({url}: {last})")
            try:
                status = status_of(url, timeout_s=min(2.0, remaining))
            except OSError as exc:
                last = f"no answer ({getattr(exc, 'reason', exc)})"
            else:
                if expected(status, ready.status):
                    return
                last = f"answered {status}, not {describe(ready.status)}"
            try:
                process.wait(timeout=max(0.0, min(wait, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                wait = min(wait * 2, _POLL_MAX_S)

    def _reset_http(self, reset: HttpReset) -> None:
        url = self._resolve(reset.url)
        call = f"its reset ({reset.method} {url})"
        try:
            status = status_of(url, reset.method, reset.timeout_s)
        except OSError as exc:
            raise self._error(f"failed {call}: no answer ({getattr(exc, 'reason', exc)})") from None
        if not expected(status, reset.status):
            raise self._error(f"failed {call}: answered {status}, not {describe(reset.status)}")

    def _reset_command(self, reset: CommandReset) -> None:
        argv = [fill_instance(arg, self._values()) for arg in reset.argv]
        call = f"its reset command {shlex.join(argv)!r}"
        try:
            done = subprocess.run(
                argv, cwd=self.spec.cwd, env=self._env(), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=reset.timeout_s,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            raise self._error(
                f"failed {call}: still running after {reset.timeout_s:g} s", _lines(exc.output)
            ) from None
        except OSError as exc:
            raise self._error(f"failed {call}: {exc.strerror or exc}", []) from None
        if done.returncode != 0:
            problem = f"failed {call}: exit status {done.returncode}"
            raise self._error(problem, _lines(done.stdout))

    def _check_running(self, what: str) -> None:
        if self._process is None:
            raise AppError(f"app {self.command!r} {what}: it is not running; call start() first")
        if self._process.poll() is not None:
            raise self._error(f"{what}: it exited with status {self._process.returncode}")

    def _end_group(self, process: subprocess.Popen[bytes]) -> None:
        end_group(process, getattr(signal, self.spec.stop.signal), self.spec.stop.grace_s)

    def _cleanup(self) -> None:
        if self._root is None or self.keep:
            return
        if self._workdir is None:
            shutil.rmtree(self._root, ignore_errors=True)  # a temporary folder: all of it
        else:
            shutil.rmtree(self.data_dir, ignore_errors=True)  # the caller's: its log stays

    def _error(self, problem: str, output: list[str] | None = None) -> AppError:
        """An ``AppError`` for ``problem``, naming the command and its last lines of output.

        The output is the app's log unless ``output`` is given.
        """
        lines = output if output is not None else _lines(self._log_tail())
        shown = "\n".join(f"  | {line}" for line in lines[-TAIL_LINES:]) or "  (no output)"
        kept = self.keep or self._workdir is not None
        source = f"its log, {self.log_path}" if output is None and kept else "its output"
        return AppError(
            f"app {self.command!r} (in {self.spec.cwd}) {problem}. The last lines of "
            f"{source}:\n{shown}"
        )

    def _not_started(self) -> AppError:
        return AppError(f"app {self.command!r} has not been started: call start() first")

    def _log_tail(self) -> bytes:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(max(0, log.seek(0, os.SEEK_END) - 16_384))
                return log.read()
        except (OSError, AppError):
            return b""


def _lines(output: bytes | str | None) -> list[str]:
    if isinstance(output, bytes):
        output = output.decode("utf-8", "replace")
    return [line for line in (output or "").splitlines() if line.strip()][-TAIL_LINES:]
