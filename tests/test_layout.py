"""The architecture as CI keeps it: every import points down the layers, offline diagnosis
and reporting import nothing of the browser, the agents' specs load no Playwright, and every
module of the package stays small enough to read."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Where each installed package's modules live in the checkout (setuptools package-dir).
FOLDERS = {
    "webharness.envs": REPO / "envs",
    "webharness.wrappers": REPO / "wrappers",
    "webharness": REPO / "webharness",
}
OFFLINE_LAYERS = ("webharness.diagnosis", "webharness.reporting")
BROWSER_SIDE = ("playwright", "webharness.browser", "webharness.episode", "webharness.envs")
MAX_LINES = 400
# The layers, lowest first (docs/architecture.md). A module imports modules of its own
# package and of lower layers only; packages that share a layer import nothing of each other.
# The root modules are the shared vocabulary, one package for this purpose; the top-level
# ``webharness`` (the library's entry, which imports every layer) is above them all.
VOCABULARY = "webharness.<vocabulary>"
LAYERS: tuple[tuple[str, ...], ...] = (
    (VOCABULARY,),
    ("webharness.actions",),  # the action space: part of the vocabulary, over its errors
    ("webharness.trace",),
    ("webharness.spec",),
    ("webharness.reporting", "webharness.miniwob"),  # offline records; the MiniWoB++ pack
    ("webharness.diagnosis",),  # offline: reads traces, specs and records
    ("webharness.browser",),
    ("webharness.apps",),  # a task's own server process (its process group, as a browser's)
    ("webharness.episode",),
    ("webharness.envs",),
    ("webharness.cdp",),  # an episode's browser handed to an agent that drives it (CDP)
    ("webharness.golden", "webharness.perturbations"),
    ("webharness.wrappers",),
    ("webharness.agents",),
    ("webharness.mcp",),  # an MCP server over one episode: envs under the wrappers
    ("webharness.external",),  # agents as processes of their own, through MCP (or CDP)
    ("webharness.runner",),
    ("webharness.cli", "webharness.testing"),
)


def module_file(name: str) -> Path | None:
    """The source file of a webharness module (a package's ``__init__.py``), if any."""
    for prefix, folder in FOLDERS.items():
        if name == prefix or name.startswith(prefix + "."):
            base = folder.joinpath(*name.removeprefix(prefix).lstrip(".").split(".") or [])
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file():
                    return candidate
    return None


def imports_of(name: str) -> set[str]:
    """Every module ``name`` imports (at any depth in its code), with the packages that
    importing it runs, but not the top-level ``webharness`` (the whole library's entry)."""
    path = module_file(name)
    assert path is not None, name
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    # Importing a.b.c runs a.b's __init__ too; names imported from a module are not modules.
    ours = {m for m in found if m.startswith("webharness.") and module_file(m) is not None}
    parents = {".".join(m.split(".")[:i]) for m in ours for i in range(2, m.count(".") + 1)}
    theirs = {m for m in found if not m.startswith("webharness")}
    return ours | parents | theirs


def closure(start: str) -> dict[str, str]:
    """Every module reachable from ``start``, each with the module that first imported it."""
    seen = {start: start}
    todo = [start]
    while todo:
        current = todo.pop()
        for imported in imports_of(current):
            if imported not in seen:
                seen[imported] = current
                if module_file(imported) is not None:
                    todo.append(imported)
    return seen


def package_modules(package: str) -> list[str]:
    folder = module_file(package)
    assert folder is not None
    names = []
    for path in sorted(folder.parent.rglob("*.py")):
        parts = path.relative_to(folder.parent).with_suffix("").parts
        names.append(".".join((package, *parts)).removesuffix(".__init__"))
    return names


@pytest.mark.parametrize("layer", OFFLINE_LAYERS)
def test_offline_layers_import_nothing_of_the_browser(layer: str) -> None:
    reached: dict[str, str] = {}
    for module in package_modules(layer):
        reached.update(closure(module))
    leaks = {m: by for m, by in reached.items() if m.startswith(BROWSER_SIDE)}
    assert leaks == {}, "module: imported by"


def test_the_import_reader_sees_a_real_browser_import() -> None:
    # The check above can fail: the browser layer's own modules do reach Playwright.
    assert "playwright.async_api" in closure("webharness.browser.runtime")


def test_every_module_of_the_package_is_under_400_lines() -> None:
    sources = [p for folder in FOLDERS.values() for p in folder.rglob("*.py")]
    sources += list((REPO / "webharness").rglob("*.js"))
    too_long = {
        str(p.relative_to(REPO)): n
        for p in sources
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert too_long == {}


def package_of(module: str) -> str:
    """The package whose layer ``module`` is in: ``webharness.<layer>``, or the vocabulary."""
    parts = module.split(".")
    package = ".".join(parts[:2])
    folder = module_file(package)
    return package if folder is not None and folder.name == "__init__.py" else VOCABULARY


def rank(package: str) -> int:
    ranks = [i for i, layer in enumerate(LAYERS) if package in layer]
    assert ranks, f"{package} is in no layer of LAYERS: add it where it belongs"
    return ranks[0]


def backward_imports(module: str) -> list[str]:
    """The modules of ``module``'s imports that are not in its package or a lower layer."""
    package = package_of(module)
    return sorted(
        imported
        for imported in imports_of(module)
        if imported.startswith("webharness.")
        and package_of(imported) != package
        and rank(package_of(imported)) >= rank(package)
    )


def every_module() -> list[str]:
    names = package_modules("webharness") + package_modules("webharness.envs")
    return [n for n in names + package_modules("webharness.wrappers") if n != "webharness"]


def test_every_import_points_down_the_layers() -> None:
    backward = {m: found for m in every_module() if (found := backward_imports(m))}
    assert backward == {}, "module: what it imports from its own layer or a higher one"


def test_the_layer_check_reads_the_real_imports() -> None:
    # The check above can fail: the runner imports the agents, which sit below it.
    assert "webharness.agents" in imports_of("webharness.runner.config")
    assert backward_imports("webharness.runner.config") == []
    assert rank("webharness.agents") < rank("webharness.runner")


def test_the_agents_specs_load_no_playwright() -> None:
    # A runner's parent process reads agent specs before any browser is wanted; importing
    # anything of webharness must not start Playwright's import (about 0.1 s and 90 modules).
    code = (
        "import sys, webharness.agents.specs; "
        "print(sorted(m for m in sys.modules if m.startswith('playwright')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout[:200]
