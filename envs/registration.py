"""Gymnasium ids for the catalogue of tasks.

Every built-in scenario is ``WebEval/<name>-v0`` (data-driven; MiniWoB++'s tasks, when it
is installed, are ``WebEval/miniwob.<task>-v0``), and task folders from anywhere are
``<namespace>/<id>-v0``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import gymnasium as gym

from webharness.errors import TaskFolderError
from webharness.miniwob.specs import pack_names, pack_spec
from webharness.spec import catalogue
from webharness.spec.task_folders import DEFAULT_NAMESPACE, TaskFolder, read_folder, resolved
from webharness.spec.task_spec import BUILTIN_NAMESPACE, TaskSpec

ENTRY_POINT = "webharness.envs.web_eval_env:WebEvalEnv"
NAMESPACE = BUILTIN_NAMESPACE


def env_id(task_name: str) -> str:
    """The Gymnasium id of a built-in task: ``env_id("form")`` is ``"WebEval/form-v0"``."""
    return f"{NAMESPACE}/{task_name}-v0"


def register_all() -> list[str]:
    """Register each built-in task folder and each task of the built-in packs, once.

    The packs' specs are built on first use. Safe to call repeatedly.

    Returns:
        The env ids of every built-in task, registered now or before.
    """
    catalogue.add_pack(catalogue.Pack(pack_names, pack_spec))
    ids = []
    for name in catalogue.task_names() + catalogue.pack_task_names():
        ident = env_id(name)
        if ident not in gym.registry:
            _register(ident, name)
        ids.append(ident)
    return ids


def register_tasks(
    path: str | os.PathLike[str],
    namespace: str = DEFAULT_NAMESPACE,
    variables: Mapping[str, str] | None = None,
) -> list[str]:
    """Register every ``task.yaml`` under ``path`` as ``<namespace>/<id>-v0``.

    ``path`` is a task folder (``task.yaml`` + ``site/``) or a folder of task folders.
    Each spec is validated now, and a relative ``site:`` is the folder next to its file.
    Registering the same folder again is harmless (nothing changes).

    Args:
        path: the folder.
        namespace: the env ids' namespace; not ``WebEval`` (the built-ins').
        variables: values of the files' ``${NAME}`` variables (the URL of your dev
            server, say), over the environment's; kept with the folder, so the runner's
            worker processes read the files the same way.

    Returns:
        The env ids of the folder's tasks, for ``gym.make``, ``get_task`` and the runner.

    Raises:
        TaskSpecError: a file is not a valid spec (naming it), or a task id that another
            file registered already (naming both files).
        TaskFolderError: no such folder, no ``task.yaml`` in it, a namespace that is not a
            name or is taken by the built-ins, or an id another library registered.

    Example:
        >>> import gymnasium as gym, webharness
        >>> webharness.register_tasks("myapp/tasks", namespace="MyApp")  # doctest: +SKIP
        ['MyApp/login-v0', 'MyApp/search-v0']
        >>> env = gym.make("MyApp/login-v0")  # doctest: +SKIP
    """
    return register_folder(resolved(path, namespace, variables))


def register_folder(folder: TaskFolder) -> list[str]:
    """``register_tasks`` for a folder as a run records it."""
    found = read_folder(folder)
    for file, spec in found:
        _check_free(spec.env_id, file)
    specs = catalogue.add_tasks(folder, found)
    for spec in specs:
        if spec.env_id not in gym.registry:
            _register(spec.env_id, spec)
    return [spec.env_id for spec in specs]


def _register(ident: str, task: str | TaskSpec) -> None:
    # A registered folder's spec goes in whole: a process that unpickles the env's
    # EnvSpec (make_vec's spawned workers) makes it without registering the folder.
    # Our env truncates at the task's max_steps itself; no TimeLimit on top.
    gym.register(
        id=ident, entry_point=ENTRY_POINT, kwargs={"task": task}, disable_env_checker=False
    )


def _check_free(ident: str, file: Path) -> None:
    """An id that Gymnasium holds for another library's env cannot be ours."""
    held = gym.registry.get(ident)
    if held is not None and held.entry_point != ENTRY_POINT:
        raise TaskFolderError(
            f"{file}: {ident} is registered by another library ({held.entry_point}); "
            "register the folder under another namespace"
        )


def registered_ids() -> list[str]:
    """Every env id of the catalogue: the built-ins and the folders registered so far."""
    return catalogue.task_ids()
