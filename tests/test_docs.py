"""docs/architecture.md names what exists: every file or folder it gives as a code-formatted
path is in the checkout, and every ``webharness.x.y`` name resolves to a module or an
attribute of one. No browser: modules are imported, nothing is launched."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ARCHITECTURE = REPO / "docs" / "architecture.md"
# The checkout's own files; build products, environments and caches are not the source.
SOURCE_ROOTS = ("webharness", "envs", "wrappers", "tasks", "scripts", "benchmarks", "tests")
SKIPPED_PARTS = {"__pycache__", "node_modules", ".venv", "build", ".mypy_cache"}
# A bare file name is a path only with these endings (`task.yaml`, `results.jsonl` are the
# names of files a task folder or a run folder holds, not of files in the checkout).
SOURCE_SUFFIXES = (".py", ".js", ".sh", ".md", ".toml")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
PATH_LIKE = re.compile(r"[A-Za-z_][\w.-]*(/[\w.-]+)*/?")
# A dotted name, not a host name inside a URL (``http://app.webharness.invalid``).
DOTTED = re.compile(r"(?<![\w./-])webharness(?:\.[A-Za-z_]\w*)+")


def source_paths() -> set[str]:
    """Every file and folder of the checkout's source, as paths relative to the root."""
    found: set[str] = set(SOURCE_ROOTS + ("docs",))
    for root in SOURCE_ROOTS + ("docs", ".ci"):
        for folder, subfolders, files in os.walk(REPO / root):
            subfolders[:] = [name for name in subfolders if name not in SKIPPED_PARTS]
            base = Path(folder).relative_to(REPO).as_posix()
            found.update(f"{base}/{name}" for name in subfolders + files)
    found.update(p.name for p in REPO.iterdir() if p.is_file())
    return found


def is_path(span: str) -> bool:
    """A code span that names a file or folder of the checkout (not a URL, a run folder's
    layout with placeholders, an absolute path or a command line)."""
    if not PATH_LIKE.fullmatch(span) or span.startswith("webharness."):
        return False
    return "/" in span or span.endswith(SOURCE_SUFFIXES)


def exists(span: str, under: tuple[str, ...], paths: set[str]) -> bool:
    """Whether ``span`` is a path of the checkout: from the root, from one of ``under``
    (the folders a layout row is about), or as the tail of a path (``page_agent/tree.js``
    under ``webharness/browser/js/``) when it has a folder part of its own."""
    name = span.rstrip("/")
    if any(f"{base}/{name}".lstrip("/") in paths for base in ("", "webharness")):
        return True
    if under:
        return any(
            p.startswith(f"{base}/") and p.endswith(f"/{name}") for base in under for p in paths
        )
    return "/" in span and any(p.endswith(f"/{name}") for p in paths)


def row_folders(cell: str) -> tuple[str, ...]:
    """The folders a layout table's first cell names, as paths from the root."""
    folders = []
    for span in CODE_SPAN.findall(cell):
        if span.endswith("/"):
            name = span.rstrip("/")
            top = name.split("/")[0] in SOURCE_ROOTS
            folders.append(name if top else f"webharness/{name}")
    return tuple(folders) or ("webharness",)


def spans_of(text: str) -> list[str]:
    """``text`` with each word of its fenced blocks (the loop's diagram) in backticks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif fenced:
            line = " ".join(f"`{word.strip(':,()')}`" for word in line.split())
        lines.append(line)
    return lines


def missing_paths(text: str, paths: set[str]) -> list[str]:
    """The code-formatted paths of ``text`` that are not in ``paths``. In a table row whose
    first cell names folders, the second cell's bare names are looked for in them."""
    missing = []
    for line in spans_of(text):
        cells = line.split("|")[1:-1] if line.startswith("|") else []
        for index, part in enumerate(cells or [line]):
            under = row_folders(cells[0]) if cells and index > 0 else ()
            for span in CODE_SPAN.findall(part):
                if is_path(span) and not exists(span, under, paths):
                    missing.append(span)
    return missing


def resolves(name: str) -> bool:
    """A module of the installed package, or an attribute of the longest module before it."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            found = importlib.util.find_spec(module)
        except ModuleNotFoundError:  # a parent is a module, not a package
            found = None
        if found is not None:
            value: object = importlib.import_module(module)
            for attribute in parts[cut:]:
                if not hasattr(value, attribute):
                    return False
                value = getattr(value, attribute)
            return True
    return False


def test_every_path_the_architecture_names_exists() -> None:
    assert missing_paths(ARCHITECTURE.read_text(encoding="utf-8"), source_paths()) == []


def test_every_dotted_name_the_architecture_names_resolves() -> None:
    names = sorted(set(DOTTED.findall(ARCHITECTURE.read_text(encoding="utf-8"))))
    assert names, "the architecture names no webharness.x module: is the pattern wrong?"
    assert [name for name in names if not resolves(name)] == []


def test_the_architecture_names_paths_for_the_check_to_read() -> None:
    # The checks above are only as good as what they find: the layout table's bare module
    # names and the paths in the prose are both read.
    text = "\n".join(spans_of(ARCHITECTURE.read_text(encoding="utf-8")))
    spans = [s for s in CODE_SPAN.findall(text) if is_path(s)]
    assert {"browser/host.py", "episode/executor.py", "host.py", "scripts/test.sh"} <= set(spans)


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("The host is in `browser/nosuch.py`.", "browser/nosuch.py"),
        ("See `tests/browser/test_nosuch.py`.", "tests/browser/test_nosuch.py"),
        ("| `browser/` | `host.py` the host; `nosuch.py` nothing |", "nosuch.py"),
        ("| `episode/` | `host.py` is not here |", "host.py"),
        ("Run `scripts/nosuch.sh`.", "scripts/nosuch.sh"),
        ("```\nenv.reset  episode/nosuch.py: the diagram\n```", "episode/nosuch.py"),
    ],
)
def test_a_path_that_does_not_exist_is_found(text: str, bad: str) -> None:
    assert missing_paths(text, source_paths()) == [bad]


def test_what_is_not_a_path_is_not_checked() -> None:
    text = "`http://webeval.test`, `golden/<task>/seed-N/`, `/proc`, `task.yaml`, `WebEval/*`"
    assert missing_paths(text, source_paths()) == []


def test_a_dotted_name_that_does_not_exist_is_found() -> None:
    assert resolves("webharness.browser.host.DRIVER_NODE_OPTIONS")
    assert resolves("webharness.envs")
    assert not resolves("webharness.browser.nosuch")
    assert not resolves("webharness.browser.host.NOSUCH")
