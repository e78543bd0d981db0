"""The exception tree: one root, a few subclasses, messages that say what to do.

Agent mistakes are never exceptions: they come back in ``info["action_result"]``.
These are for the library's users (bad configuration, missing browser, bad task file).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence


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
    """A task folder that cannot be registered.

    It is missing, holds no ``task.yaml``, or is under a namespace that is not free; the
    message names the folder or namespace, and what to do.
    """


class SetupError(WebHarnessError, RuntimeError):
    """A task's setup failed on reset: the episode is not executable.

    A call the app refused, or a target not on the page: the episode cannot start in its
    start state. The message names the task, the setup item (``setup.2``, what it is) and
    what went wrong.
    """

    def __init__(self, task: str, index: int, item: str, problem: str) -> None:
        self.task, self.index, self.item, self.problem = task, index, item, problem
        super().__init__(
            f"{task}: setup.{index} ({item}) failed: {problem}; the episode is not executable "
            "(runtime_error): fix the app or the task's setup"
        )


class AgentUnavailableError(WebHarnessError, RuntimeError):
    """An agent cannot act at all (no API key, endpoint unreachable).

    The run stops rather than count its episodes as failures.
    """


# The command that lists every task (built-in, registered and of the installed packs).
LIST_TASKS = "webharness list"
# A list of known names this long or shorter is shown whole in a message.
SHOWN_IN_FULL = 12


class UnknownTaskError(WebHarnessError, KeyError):
    """A task or env id that is not in the catalogue (built-in or registered)."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        message = f"unknown task {name!r}.{known_names(name, sorted(known), LIST_TASKS)}"
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return self.message


class RunError(WebHarnessError, RuntimeError):
    """A run that cannot start or go on (bad patterns, a run folder in use, a full disk...)."""


class ConfigError(RunError, ValueError):
    """A value of a run's configuration that cannot work.

    The message names the field, the value and what is allowed; ``field``, ``value`` and
    ``problem`` are kept for the CLI's message.
    """

    def __init__(self, field: str, value: object, problem: str) -> None:
        self.field, self.value, self.problem = field, value, problem
        super().__init__(f"{field}={value!r}: {problem}")


class AppError(WebHarnessError, RuntimeError):
    """A task's own app (``app:`` in its spec) failed to start, become ready, reset or stop.

    The message names the command and the last lines of its output. Episodes that need
    the app are not executable.
    """


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """A ' Did you mean: X?' suffix for error messages, or '' when nothing is close."""
    hint = difflib.get_close_matches(value, list(choices), n=1)
    return f" Did you mean: {hint[0]!r}?" if hint else ""


def known_names(
    value: str, known: Sequence[str], listed_by: str, key: Callable[[str], str] = str
) -> str:
    """The end of a message about an unknown name.

    Every known name when there are at most ``SHOWN_IN_FULL``; else the closest ones
    (``difflib``, comparing ``key`` of each) and how many others there are, with the command
    that lists them all.

    Example:
        >>> known_names("popop", ["latency", "popup"], "webharness list")
        " Known: 'latency', 'popup'."
        >>> tasks = [f"task-{i}" for i in range(20)] + ["form"]
        >>> known_names("from", tasks, "webharness list")
        " Closest: 'form'; 20 others: webharness list shows them all."
    """
    if len(known) <= SHOWN_IN_FULL:
        return f" Known: {', '.join(map(repr, known))}."
    keyed = {key(name): name for name in reversed(known)}  # the first name of a key wins
    close = [keyed[k] for k in difflib.get_close_matches(key(value), list(keyed), n=3)]
    if not close:
        return f" None is close; {len(known)} are known: {listed_by} shows them all."
    others = len(known) - len(close)
    return f" Closest: {', '.join(map(repr, close))}; {others} others: {listed_by} shows them all."
