"""The task catalogue: every task of this process, by env id.

The built-in scenarios (one folder each under the ``webharness.tasks`` package, env ids
``WebEval/<name>-v0``) are in it from the start and read on first use, and so are the
built-in packs' tasks (``WebEval/miniwob.<task>-v0`` when MiniWoB++ is installed), whose
specs are generated on first use. Task folders
registered from anywhere (``webharness.register_tasks``, installed task packs) join it as
``<namespace>/<id>-v0``, each spec with the file and folder it came from. ``get_task``
answers from it for both. The catalogue is per process and lock-guarded: a runner's worker
process registers again the folders its jobs name (``EpisodeJob.task_folder``).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from webharness.errors import TaskSpecError, UnknownTaskError
from webharness.spec.task_folders import TaskFolder
from webharness.spec.task_spec import BUILTIN_NAMESPACE, TaskSpec, load_task


def tasks_root() -> Path:
    """The folder of the built-in task folders: the installed ``webharness.tasks`` package."""
    return Path(str(resources.files("webharness.tasks")))


def task_names() -> list[str]:
    """Names of the built-in scenarios: the folders that hold a task.yaml."""
    return sorted(p.parent.name for p in tasks_root().glob("*/task.yaml"))


class Pack(NamedTuple):
    """A built-in pack of generated tasks, such as ``webharness/miniwob``.

    ``names()`` lists its tasks (``miniwob.click-button``), ``spec(name)`` makes one's spec.
    """

    names: Callable[[], list[str]]
    spec: Callable[[str], TaskSpec]


_PACKS: list[Pack] = []


def add_pack(pack: Pack) -> None:
    """Put a built-in pack's tasks in the catalogue as ``WebEval/<name>-v0``, once.

    The env layer adds MiniWoB++'s before it registers the envs.
    """
    if pack not in _PACKS:
        _PACKS.append(pack)


def pack_task_names() -> list[str]:
    """Names of the built-in packs' tasks, such as ``miniwob.click-button``.

    Their specs are generated from an installed library's own pages; a pack whose library
    is not installed has none.
    """
    return [name for pack in _PACKS for name in pack.names()]


def task_dir(name: str) -> Path:
    """The folder of the built-in task ``name`` (its ``task.yaml`` and ``site/``)."""
    return tasks_root() / name


def shared_assets_dir() -> Path:
    """Styles and scripts the built-in sites share (``tasks/_shared``)."""
    return tasks_root() / "_shared"


class Registered(NamedTuple):
    """A task registered from a folder: its spec (in its namespace), its file, its folder."""

    spec: TaskSpec
    file: Path
    folder: TaskFolder


_LOCK = threading.Lock()
_REGISTERED: dict[str, Registered] = {}  # by env id


def get_task(name: str) -> TaskSpec:
    """The validated spec of a task, built-in or registered.

    Args:
        name: an env id (``WebEval/form-v0``, ``MyApp/login-v0``), one without its version
            (``MyApp/login``), or a built-in's name (``form``).

    Raises:
        UnknownTaskError: no such task (the message names the closest known one).

    Example:
        >>> get_task("WebEval/form-v0").category
        'form'
    """
    env_id = full_env_id(name)
    with _LOCK:
        registered = _REGISTERED.get(env_id)
    if registered is not None:
        return registered.spec
    namespace, _, rest = env_id.partition("/")
    bare = rest.removesuffix("-v0")
    if namespace == BUILTIN_NAMESPACE and bare in task_names():
        return _builtin(bare)
    for pack in _PACKS if namespace == BUILTIN_NAMESPACE else []:
        if bare in pack.names():
            return pack.spec(bare)
    with _LOCK:
        known = task_names() + pack_task_names() + sorted(_REGISTERED)
    raise UnknownTaskError(name, known)


@functools.cache
def _builtin(name: str) -> TaskSpec:
    return load_task(task_dir(name) / "task.yaml")


def full_env_id(name: str) -> str:
    """``form`` → ``WebEval/form-v0``; ``MyApp/login`` → ``MyApp/login-v0``."""
    full = name if "/" in name else f"{BUILTIN_NAMESPACE}/{name}"
    return full if full.endswith("-v0") else f"{full}-v0"


def task_ids() -> list[str]:
    """Every env id of the catalogue, sorted.

    The built-ins' (the packs' too) and those of the folders registered so far.
    """
    names = task_names() + pack_task_names()
    builtin = [f"{BUILTIN_NAMESPACE}/{name}-v0" for name in names]
    with _LOCK:
        return sorted(builtin + list(_REGISTERED))


def task_folder(env_id: str) -> TaskFolder | None:
    """The folder a registered task came from; None for a built-in or an unknown id."""
    with _LOCK:
        registered = _REGISTERED.get(env_id)
    return registered.folder if registered else None


def add_tasks(folder: TaskFolder, found: list[tuple[Path, TaskSpec]]) -> list[TaskSpec]:
    """Add a folder's specs (each already in the folder's namespace): all of them, or none.

    A task registered before from the same file stays as it was (registering a folder
    twice is harmless).

    Returns:
        The catalogue's spec of each task, in the order given.

    Raises:
        TaskSpecError: an env id registered before from another file (names both files).
    """
    with _LOCK:
        for file, spec in found:
            held = _REGISTERED.get(spec.env_id)
            if held is not None and held.file != file:
                raise TaskSpecError(
                    str(file),
                    "id",
                    spec.id,
                    f"{spec.env_id} is registered from {held.file} already; give one of the "
                    "two tasks another id, or register the folders under different namespaces",
                )
        for file, spec in found:
            _REGISTERED.setdefault(spec.env_id, Registered(spec, file, folder))
        return [_REGISTERED[spec.env_id].spec for _, spec in found]
