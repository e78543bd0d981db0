"""The public API: the top level offers exactly the names the README's "Public API" table
shows; every package's ``__init__`` follows the one convention (a docstring saying what the
layer owns, its names in ``__all__``); every exported name resolves and every public name
is exported (not only the capitalised ones)."""

from __future__ import annotations

import ast
import importlib
import re
import types
from pathlib import Path

import pytest

import webharness

REPO = Path(__file__).resolve().parents[1]
# Where each installed package lives in the checkout (setuptools package-dir).
FOLDERS = {"webharness": REPO / "webharness", "webharness.envs": REPO / "envs"}
FOLDERS["webharness.wrappers"] = REPO / "wrappers"


def package_inits() -> dict[str, Path]:
    """Every package of the library (by import name) and its ``__init__.py``."""
    inits = {}
    for name, folder in FOLDERS.items():
        for init in sorted(folder.rglob("__init__.py")):
            parts = init.parent.relative_to(folder).parts
            inits[".".join((name, *parts))] = init
    return inits


def readme_public_names() -> list[str]:
    """The names in the README's "Public API" table, in order."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Public API\n", 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]  # no header
    return [name for row in rows for name in re.findall(r"`([^`]+)`", row.split("|")[2])]


def test_the_top_level_offers_exactly_the_names_the_readme_shows() -> None:
    documented = readme_public_names()
    assert len(documented) == len(set(documented)), "a name is in the table twice"
    assert sorted(webharness.__all__) == sorted(documented)


@pytest.mark.parametrize("name", sorted(package_inits()))
def test_a_package_init_says_what_the_layer_owns_and_lists_its_names(name: str) -> None:
    tree = ast.parse(package_inits()[name].read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{name}/__init__.py has no docstring"
    targets = [
        target.id
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    ]
    assert "__all__" in targets, f"{name}/__init__.py has no __all__"


@pytest.mark.parametrize("name", sorted(package_inits()))
def test_every_exported_name_resolves_and_every_public_name_is_exported(name: str) -> None:
    package = importlib.import_module(name)
    exported = set(package.__all__)
    assert [n for n in exported if not hasattr(package, n)] == []
    # Public: every name without an underscore defined in the package (names it imports
    # for its own use, such as typing's Any, would otherwise read as offered).
    public = {
        n
        for n, value in vars(package).items()
        if not n.startswith("_")
        and n != "TYPE_CHECKING"
        and not isinstance(value, types.ModuleType)
        and str(getattr(value, "__module__", name)).startswith(name)
    }
    assert public - exported == set()


def test_the_package_is_typed() -> None:
    assert (Path(webharness.__file__).parent / "py.typed").is_file()
