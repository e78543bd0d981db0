"""The task catalogue: one folder per scenario under the ``webharness.tasks`` package."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from webharness.errors import UnknownTaskError
from webharness.spec.task_spec import TaskSpec, load_task


def tasks_root() -> Path:
    return Path(str(resources.files("webharness.tasks")))


def task_names() -> list[str]:
    """Names of the built-in scenarios: the folders that hold a task.yaml."""
    return sorted(p.parent.name for p in tasks_root().glob("*/task.yaml"))


@functools.cache
def get_task(name: str) -> TaskSpec:
    """The validated spec of a built-in scenario, by name ("form") or env id."""
    name = name.removeprefix("WebEval/").removesuffix("-v0")
    if name not in task_names():
        raise UnknownTaskError(name, task_names())
    return load_task(task_dir(name) / "task.yaml")


def task_dir(name: str) -> Path:
    return tasks_root() / name


def shared_assets_dir() -> Path:
    """Styles and scripts the built-in sites share (``tasks/_shared``)."""
    return tasks_root() / "_shared"
