"""Installed task packs, registered when ``webharness`` is imported.

A task pack is a distribution that declares task folders in the entry-point group
``webharness.tasks``.

A pack's ``pyproject.toml`` names each folder with the namespace as the entry point's name::

    [project.entry-points."webharness.tasks"]
    MyApp = "myapp_tasks"            # a package: the folder it is in
    Other = "myapp_tasks:folder"     # or a path (str or Path), or a callable returning one

Its tasks are then ``MyApp/<id>-v0``. A pack that cannot be registered is a warning
naming it; it never breaks the import.
"""

from __future__ import annotations

import os
import types
import warnings
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from webharness.envs.registration import register_tasks

GROUP = "webharness.tasks"


class TaskPackWarning(UserWarning):
    """An installed task pack could not be registered (its tasks are not available)."""


def register_task_packs() -> list[str]:
    """Register the folder of every installed pack; returns the env ids registered.

    Only the packs' entry points are imported (the packages that declare them): no
    browser, no pack code beyond that.
    """
    ids: list[str] = []
    for entry in entry_points(group=GROUP):
        try:
            ids += register_tasks(pack_folder(entry), namespace=entry.name)
        except Exception as exc:  # a pack's own error, whatever it is, must not break us
            dist = entry.dist.name if entry.dist is not None else "unknown distribution"
            warnings.warn(
                f"webharness: task pack {entry.name!r} ({entry.value}, from {dist}) was not "
                f"registered: {type(exc).__name__}: {exc}",
                TaskPackWarning,
                stacklevel=2,
            )
    return ids


def pack_folder(entry: EntryPoint) -> Path:
    """The folder an entry point names: a path, a callable returning one, or a package."""
    target: Any = entry.load()
    if isinstance(target, types.ModuleType):
        folders = list(getattr(target, "__path__", []))  # a package: its folder
        if not folders and target.__file__:
            folders = [str(Path(target.__file__).parent)]
        target = folders[0] if folders else None
    elif callable(target):
        target = target()
    if not isinstance(target, (str, os.PathLike)):
        raise TypeError(
            f"{entry.value} gives {type(target).__name__}; it must give a folder path "
            "(str or Path), a callable returning one, or a package"
        )
    return Path(target)
