"""ES modules bundled into one classic script: how the page agent's files reach a document.

Each file of ``js/page_agent/`` is an ES module. It imports by name what it uses of the
others (``import { state } from "./core.js";``) and exports what they use of it
(``export const state = ...``). A document evaluates the agent as one classic script, in a
world of its own (``agent_world.py``), so :func:`bundle` lays the modules out in the order
a browser evaluates them (what a module imports first) and runs each in a function scope
of its own: a module sees the names it imports and no other module's.

The imports are checked against the exports as the bundle is made. A name a module does
not export, two bindings of one name in a module, an export no module imports, a circle
of imports and a file the entry does not reach are refused with a
:class:`ScriptModuleError` naming the file and the name. Only the forms the page agent
uses are read, each at the start of a line (prettier's layout):
``import { a, b } from "./file.js";`` and ``export const|function|class name``. eslint
(``scripts/lint.sh``) checks what this does not: a name used but neither declared nor
imported.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from webharness.errors import WebHarnessError, did_you_mean

_IDENT = r"[A-Za-z_$][\w$]*"
_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"\./([a-z_][a-z0-9_]*\.js)";?[ \t]*$', re.M)
_EXPORT = re.compile(rf"^export ((?:const|function|async function|class) ({_IDENT}))", re.M)
_DECLARED = re.compile(
    rf"^(?:export )?(?:const|let|var|function|async function|class) ({_IDENT})", re.M
)
_STATEMENT = re.compile(r"^(import|export)\b.*", re.M)
_NAME = re.compile(rf"{_IDENT}\Z")
_MODULE_FILE = re.compile(r"[a-z_][a-z0-9_]*\.js\Z")


class ScriptModuleError(WebHarnessError, ValueError):
    """A module of the page agent whose imports and exports do not fit together (or that
    uses a form the bundler does not read): names the file, the name and what to do."""


@dataclass(frozen=True)
class Module:
    """One module's interface and code, as the bundle uses them."""

    file: str
    imports: dict[str, tuple[str, ...]]  # the file imported from -> the names, in order
    exports: tuple[str, ...]
    body: str  # the source without its import statements and ``export`` keywords


def parse_module(file: str, source: str) -> Module:
    """Read a module's imports and exports; refuse a form this bundler does not read, or a
    name bound twice (imported twice, or imported and declared)."""
    if not _MODULE_FILE.match(file):
        raise ScriptModuleError(f"{file!r}: a module's file name is lowercase letters, digits, _")
    _refuse_unread_forms(file, source)
    imports = _imports(file, source)
    bound: dict[str, str] = {}  # name -> what binds it, for the clash message
    for source_file, names in imports.items():
        for name in names:
            _bind(file, name, f"imported from ./{source_file}", bound)
    for declared in _DECLARED.finditer(source):
        _bind(file, declared.group(1), "declared", bound)
    exports = tuple(m.group(2) for m in _EXPORT.finditer(source))
    body = _EXPORT.sub(r"\1", _IMPORT.sub("", source))
    return Module(file, imports, exports, body)


def _refuse_unread_forms(file: str, source: str) -> None:
    read = {m.start() for m in _IMPORT.finditer(source)}
    read |= {m.start() for m in _EXPORT.finditer(source)}
    for statement in _STATEMENT.finditer(source):
        if statement.start() not in read:
            raise ScriptModuleError(
                f"{file}:{_line(source, statement.start())}: {statement.group(0)!r} is a form "
                f"the bundler does not read: write 'import {{ name }} from \"./file.js\";' or "
                f"'export const name = ...' (function and class too)"
            )


def _imports(file: str, source: str) -> dict[str, tuple[str, ...]]:
    imports: dict[str, tuple[str, ...]] = {}
    for match in _IMPORT.finditer(source):
        names = tuple(n.strip() for n in match.group(1).split(",") if n.strip())
        for name in names:
            if not _NAME.match(name):
                raise ScriptModuleError(
                    f"{file}: imports {name!r} from ./{match.group(2)}: only plain names are "
                    "read (no 'as' renames)"
                )
        imports[match.group(2)] = imports.get(match.group(2), ()) + names
    return imports


def _bind(file: str, name: str, how: str, bound: dict[str, str]) -> None:
    if name in bound:
        raise ScriptModuleError(
            f"{file}: {name} is {bound[name]} and {how} too: a module binds a name once"
        )
    bound[name] = how


def _line(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


def evaluation_order(modules: Mapping[str, Module], entry: str) -> list[str]:
    """The modules as a browser evaluates them from ``entry``: each after what it imports
    (depth first, in import order). Refuses an import of a file or a name that is not
    there, a circle of imports, and a module the entry does not reach."""
    order: list[str] = []
    path: list[str] = []

    def visit(file: str) -> None:
        if file in order:
            return
        if file in path:
            circle = " -> ".join([*path[path.index(file) :], file])
            raise ScriptModuleError(
                f"the modules import each other in a circle: {circle}; move what they share "
                "into a module of its own"
            )
        path.append(file)
        for source, names in modules[file].imports.items():
            _check_import(modules, file, source, names)
            visit(source)
        path.pop()
        order.append(file)

    if entry not in modules:
        raise ScriptModuleError(f"the entry {entry} is not one of the modules: {sorted(modules)}")
    visit(entry)
    unreached = sorted(set(modules) - set(order))
    if unreached:
        raise ScriptModuleError(
            f"{unreached[0]} is not imported by any module that {entry} reaches: import it, "
            "or delete it"
        )
    return order


def _check_import(
    modules: Mapping[str, Module], file: str, source: str, names: tuple[str, ...]
) -> None:
    if source not in modules:
        raise ScriptModuleError(
            f"{file} imports from ./{source}, which is not one of the modules."
            f"{did_you_mean(source, modules)}"
        )
    for name in names:
        if name not in modules[source].exports:
            raise ScriptModuleError(
                f"{file} imports {name} from ./{source}, which does not export it."
                f"{did_you_mean(name, modules[source].exports)} Export it there, or import it "
                "from the module that does"
            )


def _check_exports_used(modules: Mapping[str, Module]) -> None:
    imported = {
        (source, name)
        for module in modules.values()
        for source, names in module.imports.items()
        for name in names
    }
    for module in modules.values():
        for name in module.exports:
            if (module.file, name) not in imported:
                raise ScriptModuleError(
                    f"{module.file} exports {name}, which no module imports: drop the export"
                )


def bundle(sources: Mapping[str, str], entry: str) -> str:
    """The modules (file name -> source) as the statements of one function body: each
    module a function called once, in evaluation order, given what it imports.

    Raises:
        ScriptModuleError: the modules' imports and exports do not fit together.
    """
    modules = {file: parse_module(file, source) for file, source in sources.items()}
    order = evaluation_order(modules, entry)
    _check_exports_used(modules)
    return "".join(_wrapped(modules[file], file == entry) for file in order)


def _wrapped(module: Module, entry: bool) -> str:
    imports = "".join(
        f"const {{ {', '.join(names)} }} = {_binding(source)};\n"
        for source, names in module.imports.items()
    )
    result = "" if entry else f"return {{ {', '.join(module.exports)} }};\n"
    head = "(() => {" if entry else f"const {_binding(module.file)} = (() => {{"
    body = module.body if module.body.endswith("\n") else module.body + "\n"
    return f"// --- {module.file}\n{head}\n{imports}{body}{result}}})();\n"


def _binding(file: str) -> str:
    return "module$" + file.removesuffix(".js")
