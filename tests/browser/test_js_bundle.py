"""The page agent's ES modules bundled into one script (``browser/js_bundle.py``): the real
modules bundle and parse; the bundle evaluates modules in the order, and with the scopes,
of a real ES module loader (node's); and imports that do not fit the exports (a name not
exported, a name bound twice, a circle, a module left out, an unused export, a form the
bundler does not read) are refused, naming the file and the name."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from webharness.browser.js_bundle import ScriptModuleError, bundle
from webharness.browser.page_scripts import PAGE_AGENT_ENTRY, page_agent_script

REPO = Path(__file__).resolve().parents[2]
PAGE_AGENT = REPO / "webharness" / "browser" / "js" / "page_agent"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail("node is missing: install Node.js (scripts/setup.sh needs it for npm)")
    return found


def page_agent(tmp_path: Path) -> Path:
    """A copy of the page agent's modules, to plant mistakes in."""
    copy = tmp_path / "page_agent"
    shutil.copytree(PAGE_AGENT, copy)
    return copy


def sources(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in folder.glob("*.js")}


def test_every_module_of_the_page_agent_is_in_the_script_it_injects(tmp_path: Path) -> None:
    script = page_agent_script()
    for path in PAGE_AGENT.glob("*.js"):
        assert f"// --- {path.name}\n" in script
    bundled = tmp_path / "agent.js"
    bundled.write_text(script, encoding="utf-8")
    checked = subprocess.run([node(), "--check", bundled], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


# Three modules as a page agent has them: a shared one, one with a private name and a side
# effect at load, and an entry importing both.
SMALL = {
    "core.js": 'export const log = [];\nlog.push("core");\n',
    "watch.js": (
        'import { log } from "./core.js";\n'
        "const hidden = 1;\n"
        'export const quietMs = () => hidden + 1;\nlog.push("watch");\n'
    ),
    "main.js": (
        'import { quietMs } from "./watch.js";\nimport { log } from "./core.js";\n'
        'log.push("main");\n'
        "globalThis.seen = [log, quietMs(), typeof hidden, typeof log];\n"
    ),
}
PRINT_SEEN = "console.log(JSON.stringify(globalThis.seen));\n"


def test_the_bundle_evaluates_as_node_evaluates_the_modules(tmp_path: Path) -> None:
    for file, text in SMALL.items():
        (tmp_path / file).write_text(text + (PRINT_SEEN if file == "main.js" else ""))
    (tmp_path / "package.json").write_text(json.dumps({"type": "module"}))
    as_modules = subprocess.run([node(), "main.js"], cwd=tmp_path, capture_output=True, text=True)
    script = f'(() => {{\n"use strict";\n{bundle(SMALL, "main.js")}}})();\n{PRINT_SEEN}'
    bundled = subprocess.run([node(), "-e", script], capture_output=True, text=True)
    assert as_modules.returncode == 0, as_modules.stderr
    assert bundled.returncode == 0, bundled.stderr
    # Dependencies first; a module's private name is not seen by the one importing it.
    assert json.loads(as_modules.stdout) == [["core", "watch", "main"], 2, "undefined", "object"]
    assert bundled.stdout == as_modules.stdout


# A mistake planted in a copy of the page agent: (file, text there, what replaces it, the
# error's message). Each is refused, and the message names the file and the name.
LOOKUP = "export const lookup"
MISTAKES = {
    # watch.js declares MIN_QUIET_MS; core.js does not.
    "a name the module does not export": (
        "refs.js",
        "import { state }",
        "import { state, MIN_QUIET_MS }",
        r"refs\.js imports MIN_QUIET_MS from \./core\.js, which does not export it",
    ),
    "a file that is not a module": (
        "refs.js",
        '"./core.js"',
        '"./cores.js"',
        r"refs\.js imports from \./cores\.js, which is not one of .* Did you mean: 'core\.js'",
    ),
    "a name imported and declared": (
        "refs.js",
        LOOKUP,
        f"export const state = 1;\n{LOOKUP}",
        r"refs\.js: state is imported from \./core\.js and declared too",
    ),
    "a circle of imports": (
        "core.js",
        "export const KEY",
        'import { lookup } from "./refs.js";\nexport const KEY',
        r"circle: core\.js -> refs\.js -> core\.js",
    ),
    "an export no module imports": (
        "refs.js",
        LOOKUP,
        f"export const unused = 1;\n{LOOKUP}",
        r"refs\.js exports unused, which no module imports",
    ),
    "a namespace import": (
        "refs.js",
        LOOKUP,
        f'import * as core from "./core.js";\n{LOOKUP}',
        r"refs\.js:\d+: 'import \* as core",
    ),
    "a renamed import": (
        "refs.js",
        LOOKUP,
        f'import {{ state as shared }} from "./core.js";\n{LOOKUP}',
        r"refs\.js: imports 'state as shared' from \./core\.js",
    ),
    "a default export": (
        "refs.js",
        LOOKUP,
        f"export default 1;\n{LOOKUP}",
        r"refs\.js:\d+: 'export default 1;'",
    ),
    "an exported let": (
        "refs.js",
        LOOKUP,
        f"export let counter = 0;\n{LOOKUP}",
        r"refs\.js:\d+: 'export let counter",
    ),
}


@pytest.mark.parametrize("mistake", MISTAKES)
def test_modules_whose_imports_do_not_fit_the_exports_are_refused(
    tmp_path: Path, mistake: str
) -> None:
    file, old, new, message = MISTAKES[mistake]
    copy = page_agent(tmp_path)
    path = copy / file
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {file} any more: update the test"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ScriptModuleError, match=message):
        bundle(sources(copy), PAGE_AGENT_ENTRY)


def test_a_module_the_entry_does_not_reach_is_refused(tmp_path: Path) -> None:
    copy = page_agent(tmp_path)
    (copy / "forgotten.js").write_text("const nothing = 0;\n")
    with pytest.raises(ScriptModuleError, match=r"forgotten\.js is not imported by any module"):
        bundle(sources(copy), PAGE_AGENT_ENTRY)
