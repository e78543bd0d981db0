"""The exception tree: one root, a few subclasses, messages that say what to do.

Agent mistakes are never exceptions: they come back in ``info["action_result"]``.
These are for the library's users (bad configuration, missing browser, bad task file).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class WebHarnessError(Exception):
    """Root of every error raised by webharness."""


class BrowserNotFoundError(WebHarnessError, FileNotFoundError):
    """No Chromium could be found to launch."""


class BrowserError(WebHarnessError, RuntimeError):
    """The browser failed in a way the harness could not recover from."""


class TaskSpecError(WebHarnessError, ValueError):
    """A task.yaml is malformed: names the file, the field path and the value."""

    def __init__(self, file: str, field: str, value: object, problem: str) -> None:
        self.file, self.field, self.value, self.problem = file, field, value, problem
        shown = repr(value)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        super().__init__(f"{file}: field '{field}' = {shown}: {problem}")


class TaskFolderError(WebHarnessError, ValueError):
    """A task folder that cannot be registered (missing, holding no ``task.yaml``, or under a
    namespace that is not free): names the folder or namespace, and what to do."""


class SetupError(WebHarnessError, RuntimeError):
    """A task's setup failed on reset (a call the app refused, a target not on the page):
    the episode cannot start in its start state, so it is not executable. Names the task,
    the setup item (``setup.2``, what it is) and what went wrong."""

    def __init__(self, task: str, index: int, item: str, problem: str) -> None:
        self.task, self.index, self.item, self.problem = task, index, item, problem
        super().__init__(
            f"{task}: setup.{index} ({item}) failed: {problem}; the episode is not executable "
            "(runtime_error): fix the app or the task's setup"
        )


class AgentUnavailableError(WebHarnessError, RuntimeError):
    """An agent cannot act at all (no API key, endpoint unreachable): the run stops
    rather than count its episodes as failures."""


class UnknownTaskError(WebHarnessError, KeyError):
    """A task or env id that is not in the catalogue (built-in or registered)."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        known = sorted(known)
        message = f"unknown task {name!r}.{did_you_mean(name, known)} Known: {', '.join(known)}"
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return self.message


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """A ' Did you mean: X?' suffix for error messages, or '' when nothing is close."""
    hint = difflib.get_close_matches(value, list(choices), n=1)
    return f" Did you mean: {hint[0]!r}?" if hint else ""


class AppError(WebHarnessError, RuntimeError):
    """A task's own app (``app:`` in its spec) failed to start, to become ready, to reset or
    to stop: names the command and the last lines of its output. Episodes that need the app
    are not executable."""
