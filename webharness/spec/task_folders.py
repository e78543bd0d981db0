"""Task folders from anywhere: the ``task.yaml`` files under a folder, read as the specs of
one namespace, every problem named by its file (or the folder, or the namespace)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, model_serializer
from pydantic_core.core_schema import SerializerFunctionWrapHandler

from webharness.errors import TaskFolderError, TaskSpecError
from webharness.spec.task_spec import BUILTIN_NAMESPACE, TaskSpec, load_task

DEFAULT_NAMESPACE = "Local"  # of a folder registered without one (``--tasks ./myapp``)
TASK_FILE = "task.yaml"
_NAMESPACE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_NOT_TASKS = frozenset({"__pycache__", "node_modules"})  # never searched for task files


class TaskFolder(BaseModel):
    """A folder of tasks and the namespace it is registered under, as a run records it
    (the path absolute), so a worker process can register it again; with the ``${NAME}``
    variables it was registered with (``register_tasks(..., variables=...)``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    namespace: str = DEFAULT_NAMESPACE
    variables: tuple[tuple[str, str], ...] = ()  # (name, value) pairs: hashable

    @model_serializer(mode="wrap")
    def _without_empty_variables(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("variables"):
            data.pop("variables", None)  # a manifest without variables reads as before
        return data


def check_namespace(namespace: str) -> str:
    """A namespace of env ids (``MyApp`` in ``MyApp/login-v0``) that may be registered.

    Raises:
        TaskFolderError: not a name (letters, digits, ``_``, ``-``; a letter first), or the
            built-ins' ``WebEval``.
    """
    if namespace == BUILTIN_NAMESPACE:
        raise TaskFolderError(
            f"namespace {namespace!r} is the built-in tasks'; register your folder under "
            "a namespace of its own, e.g. namespace='MyApp'"
        )
    if not isinstance(namespace, str) or not _NAMESPACE.fullmatch(namespace):
        raise TaskFolderError(
            f"namespace {namespace!r} is not a name: use letters, digits, '_' and '-', "
            "starting with a letter, e.g. 'MyApp'"
        )
    return namespace


def task_files(folder: Path) -> list[Path]:
    """The ``task.yaml`` files under ``folder``: its own (a task folder), or those of the
    folders below it (a folder of task folders, at any depth). A task folder's subfolders
    (its ``site/``) are not searched; hidden folders and ``__pycache__`` neither.
    """
    found = []
    for root, dirs, files in os.walk(folder):
        if TASK_FILE in files:
            found.append(Path(root) / TASK_FILE)
            dirs.clear()
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_TASKS)
    return sorted(found)


def read_folder(folder: TaskFolder) -> list[tuple[Path, TaskSpec]]:
    """Each task file under the folder with its validated spec, in the folder's namespace.

    Raises:
        TaskFolderError: the folder does not exist or holds no ``task.yaml``, or the
            namespace cannot be registered.
        TaskSpecError: a file is not a valid spec, or two files give the same id (naming both).
    """
    check_namespace(folder.namespace)
    root = Path(folder.path)
    if not root.is_dir():
        raise TaskFolderError(f"{root}: no such folder; give a task folder or a folder of them")
    files = task_files(root)
    if not files:
        raise TaskFolderError(
            f"{root} holds no {TASK_FILE}: give a task folder (with {TASK_FILE} and site/) "
            "or a folder of task folders"
        )
    found: dict[str, tuple[Path, TaskSpec]] = {}
    for file in files:
        spec = load_task(file, dict(folder.variables)).in_namespace(folder.namespace)
        if spec.id in found:
            raise TaskSpecError(
                str(file),
                "id",
                spec.id,
                f"{found[spec.id][0]} has the same id; each task of a folder needs its own id",
            )
        found[spec.id] = (file, spec)
    return list(found.values())


def resolved(
    path: str | os.PathLike[str],
    namespace: str = DEFAULT_NAMESPACE,
    variables: Mapping[str, str] | None = None,
) -> TaskFolder:
    """The folder as it is registered and recorded: absolute, ``~`` expanded."""
    return TaskFolder(
        path=str(Path(path).expanduser().resolve()),
        namespace=namespace,
        variables=tuple(sorted((variables or {}).items())),
    )
