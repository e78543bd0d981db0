"""Which tasks a command names (``--tasks``): env ids, glob patterns and task folders.

A folder entry is registered and stands for its tasks' env ids: a path that exists as a
folder or starts with ``.``, ``/`` or ``~`` (``./myapp``, registered as ``Local/<id>-v0``),
or ``Namespace=path`` (``MyApp=./myapp``: ``MyApp/<id>-v0``).
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from webharness.errors import (
    LIST_TASKS,
    ConfigError,
    TaskFolderError,
    TaskSpecError,
    known_names,
)
from webharness.spec.task_folders import DEFAULT_NAMESPACE, TaskFolder, resolved

NO_TASKS = (
    "name at least one task: an env id, a name or a pattern (WebEval/form-v0, form, "
    "WebEval/*), or a task folder (./myapp)"
)


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
    if task is None:
        ids = among if among is not None else select_tasks(default or "")
    elif among is None:
        try:
            ids = select_tasks(task)
        except ConfigError as exc:  # the positional task, not --tasks, is what was typed
            raise ConfigError("task", task, exc.problem) from None
    else:
        ids = [i for i in among if task in (i, _task_name(i))]
        if not ids:
            hint = known_names(task, among, LIST_TASKS, key=_task_name)
            problem = f"it is not one of --tasks {tasks!r}.{hint}"
            raise ConfigError("task", task, problem)
    if len(ids) != 1:
        field, value = ("task", task) if task is not None else ("tasks", tasks)
        raise ConfigError(field, value, f"name one task to play; this names {_few(ids)}")
    return ids[0]


def _few(ids: list[str]) -> str:
    """``ids`` for a message: all of a handful, else the first three and how many more."""
    shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
    return f"{len(ids)}: {shown}"


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


def _matches(env_id: str, pattern: str) -> bool:
    """``pattern`` names ``env_id``. A pack's task (a dot in its name, ``miniwob.x``) is
    matched only by a pattern with a dot, as a shell's ``*`` skips dotfiles: ``WebEval/*``
    stays the built-in scenarios, ``WebEval/miniwob.*`` is the MiniWoB++ pack."""
    if "." in env_id.partition("/")[2] and "." not in pattern.partition("/")[2]:
        return False
    return fnmatch.fnmatch(env_id, pattern) or fnmatch.fnmatch(env_id, f"{pattern}-v0")


def match_tasks(patterns: list[str]) -> list[str]:
    """Registered env ids matching the patterns (``WebEval/*``, ``form``, ``WebEval/form-v0``,
    ``MyApp/*`` for a folder registered under ``MyApp``).

    Raises:
        ConfigError: a pattern matches no registered id (the message suggests the closest).

    Example:
        >>> match_tasks(["WebEval/form*"])
        ['WebEval/form-v0']
    """
    import webharness  # noqa: F401  (registers the built-in ids)
    from webharness.envs import registered_ids

    known = registered_ids()
    matched: list[str] = []
    for pattern in patterns:
        full = pattern if "/" in pattern else f"WebEval/{pattern}"
        hits = [i for i in known if _matches(i, full)]
        if not hits:
            hint = known_names(full, known, LIST_TASKS, key=_task_name)
            raise ConfigError("tasks", pattern, f"no task matches {pattern!r}.{hint}")
        matched.extend(h for h in hits if h not in matched)
    return matched


def _task_name(env_id: str) -> str:
    """``form`` of ``WebEval/form-v0``: what a near miss is compared on."""
    return env_id.rpartition("/")[2].removesuffix("-v0")
