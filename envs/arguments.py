"""Checks of ``WebEvalEnv``'s arguments, and the time a task's setup may take."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webharness.errors import did_you_mean
from webharness.spec.task_spec import TaskSpec


def setup_s(spec: TaskSpec, action_timeout_ms: float) -> float:
    """The time, in seconds, a task's setup may take on top of a reset.

    Each HTTP call counts its own bound, each other item an action's.
    """
    bounds = (i.http.timeout_ms if i.http else action_timeout_ms for i in spec.setup)
    return sum(bounds) / 1000


def at_least(low: int, value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name}={value!r}: give a whole number of at least {low}")
    return value


def choice(enum: type[Any], value: str, name: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        options = [m.value for m in enum]
        raise ValueError(
            f"{name}={value!r} is not one of {options}.{did_you_mean(str(value), options)}"
        ) from None


def sized(value: Any, name: str) -> tuple[int, int]:
    """A (width, height) of whole positive pixels."""
    if (
        not isinstance(value, (tuple, list))
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        raise ValueError(
            f"{name}={value!r}: give (width, height) in whole pixels, e.g. (1024, 768)"
        )
    return int(value[0]), int(value[1])


def folder(value: str | Path | None, name: str) -> Path | None:
    """An existing directory, resolved; None stays None."""
    if value is None:
        return None
    if not isinstance(value, (str, Path)) or not Path(value).is_dir():
        raise ValueError(f"{name}={value!r}: give the path of an existing folder")
    return Path(value).resolve()
