"""Which tasks a command names (``--tasks``): env ids, glob patterns and task folders.

A folder entry is registered and stands for its tasks' env ids: a path that exists as a
folder or starts with ``.``, ``/`` or ``~`` (``./myapp``, registered as ``Local/<id>-v0``),
or ``Namespace=path`` (``MyApp=./myapp``: ``MyApp/<id>-v0``).
"""

from __future__ import annotations

from pathlib import Path

from webharness.errors import TaskFolderError, TaskSpecError
from webharness.runner.config import NO_TASKS, ConfigError, match_tasks
from webharness.spec.task_folders import DEFAULT_NAMESPACE, TaskFolder, resolved


def is_folder_entry(entry: str) -> bool:
    """Whether a ``--tasks`` entry names a folder rather than ids or a pattern."""
    return "=" in entry or entry.startswith((".", "/", "~")) or Path(entry).is_dir()


def resolve_tasks(
    entries: list[str], folders: list[TaskFolder]
) -> tuple[list[str], list[TaskFolder]]:
    """Register ``folders`` and every folder entry; each folder entry gives way to the env
    ids of its tasks.

    Returns:
        The entries as ids and patterns, and the folders (the given ones first).

    Raises:
        ConfigError: a folder that cannot be registered (field ``tasks``, naming the entry
            and the file or folder at fault).
    """
    for folder in folders:
        _register(folder, folder.path)
    patterns: list[str] = []
    every = list(folders)
    for entry in entries:
        if not is_folder_entry(entry):
            patterns.append(entry)
            continue
        folder = _folder(entry)
        patterns += [i for i in _register(folder, entry) if i not in patterns]
        if folder not in every:
            every.append(folder)
    return patterns, every


def select_tasks(text: str) -> list[str]:
    """The env ids a comma-separated ``--tasks`` value names, its folders registered.

    Raises:
        ConfigError: nothing named, a folder that cannot be registered, or a pattern that
            matches no task.
    """
    entries = [part.strip() for part in text.split(",") if part.strip()]
    if not entries:
        raise ConfigError("tasks", text, NO_TASKS)
    patterns, _ = resolve_tasks(entries, [])
    return match_tasks(patterns)


def one_task(task: str | None, tasks: str | None, default: str | None = None) -> str:
    """The one env id a command plays (``demo``, ``record``): ``task`` (an id, a name, a
    pattern or a folder), among the tasks of ``--tasks`` when that is given too; without
    either, ``default``.

    Raises:
        ConfigError: none or several tasks are named.
    """
    among = select_tasks(tasks) if tasks else None
    if task is not None and among is not None:
        ids = [i for i in among if task in (i, i.rpartition("/")[2].removesuffix("-v0"))]
    elif task is not None or among is None:
        ids = select_tasks(task or default or "")
    else:
        ids = among
    if len(ids) != 1:
        named = f"{len(ids)}: {', '.join(ids)}" if ids else f"none of {', '.join(among or [])}"
        raise ConfigError("tasks", tasks or task, f"name one task to play; this names {named}")
    return ids[0]


def _register(folder: TaskFolder, entry: str) -> list[str]:
    from webharness.envs.registration import register_folder

    try:
        return register_folder(folder)
    except (TaskFolderError, TaskSpecError) as exc:
        raise ConfigError("tasks", entry, str(exc)) from None


def _folder(entry: str) -> TaskFolder:
    """``MyApp=./myapp`` or ``./myapp`` (the default namespace)."""
    namespace, sep, path = entry.partition("=")
    if not sep:
        namespace, path = DEFAULT_NAMESPACE, entry
    return resolved(path.strip(), namespace.strip())
