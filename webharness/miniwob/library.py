"""The installed MiniWoB++ library (``pip install webharness[miniwob]``), found without
importing it: its package imports Selenium's machinery and registers Gymnasium ids of its
own, neither of which ``import webharness`` may do. What is read is its files: the task
pages (``html/miniwob/<task>.html`` over ``html/core/``, ``html/common/``) and the list of
its tasks (the ``subdomain`` each of its envs declares, in ``miniwob/envs/miniwob_envs.py``).
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

# MiniWoB++'s episode time limit when a page sets none (core.js: core.EPISODE_MAX_TIME)
DEFAULT_TIME_LIMIT_MS = 10_000
_SUBDOMAIN = re.compile(r'^\s*subdomain = "([a-z0-9-]+)"\s*$', re.MULTILINE)
_TIME_LIMIT = re.compile(r"core\.EPISODE_MAX_TIME\s*=\s*(\d+)")


@functools.cache
def library_dir() -> Path | None:
    """The ``miniwob`` package's folder; None when it is not installed."""
    try:
        found = importlib.util.find_spec("miniwob")
    except (ImportError, ValueError):  # a broken install, or a module stubbed out as None
        return None
    if found is None or not found.submodule_search_locations:
        return None
    return Path(next(iter(found.submodule_search_locations)))


def html_dir() -> Path | None:
    """The folder MiniWoB++ serves its pages from (``miniwob/``, ``core/``, ``common/``)."""
    folder = library_dir()
    return folder / "html" if folder is not None and (folder / "html").is_dir() else None


def page(task: str) -> Path:
    """A task's page (``html/miniwob/<task>.html``)."""
    html = html_dir()
    if html is None:
        raise FileNotFoundError("MiniWoB++ is not installed: pip install 'webharness[miniwob]'")
    return html / "miniwob" / f"{task}.html"


@functools.cache
def task_names() -> tuple[str, ...]:
    """MiniWoB++'s own tasks that have a page here, in its order; none when it is not
    installed (or its layout is not one this version reads)."""
    folder, html = library_dir(), html_dir()
    if folder is None or html is None:
        return ()
    try:
        source = (folder / "envs" / "miniwob_envs.py").read_text(encoding="utf-8")
    except OSError:
        return ()
    names = dict.fromkeys(_SUBDOMAIN.findall(source))
    return tuple(n for n in names if (html / "miniwob" / f"{n}.html").is_file())


def time_limit_ms(task: str) -> int:
    """The task's own episode time limit: what its page sets, else MiniWoB++'s default."""
    found = _TIME_LIMIT.search(page(task).read_text(encoding="utf-8"))
    return int(found.group(1)) if found else DEFAULT_TIME_LIMIT_MS
