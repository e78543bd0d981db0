"""eslint over the package's JavaScript (``eslint.config.js``, run by ``scripts/lint.sh``):
a page agent module that uses a name of another module without importing it is refused,
naming the file and the name, as the bundle would leave that name undefined in the page
(``browser/js_bundle.py`` runs each module in a scope of its own)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ESLINT = REPO / "node_modules" / ".bin" / "eslint"
PAGE_AGENT = Path("webharness") / "browser" / "js" / "page_agent"


def eslint(source: str, as_file: Path) -> list[tuple[str, str]]:
    """eslint's (rule, message) pairs for ``source`` linted as the checkout's ``as_file``."""
    if not ESLINT.exists():
        pytest.fail(f"{ESLINT} is missing: run scripts/setup_js_checks.sh")
    run = subprocess.run(
        [ESLINT, "--format", "json", "--stdin", "--stdin-filename", as_file],
        input=source,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode in (0, 1), run.stderr  # 1: problems found
    [result] = json.loads(run.stdout)
    assert result["filePath"] == str(REPO / as_file)
    return [(m["ruleId"], m["message"]) for m in result["messages"]]


def drop_import(source: str) -> str:
    """settle.js without MIN_QUIET_MS in its import of watch.js; its uses stay."""
    planted, dropped = re.subn(r"\bMIN_QUIET_MS,\s*", "", source, count=1)
    assert dropped == 1 and "MIN_QUIET_MS" in planted
    return planted


def add_use(source: str) -> str:
    """refs.js, which imports nothing of watch.js, using MIN_QUIET_MS."""
    return source + "export const quietMs = () => MIN_QUIET_MS;\n"


@pytest.mark.parametrize(("module", "plant"), [("settle.js", drop_import), ("refs.js", add_use)])
def test_a_name_of_another_module_used_without_its_import_fails_eslint(
    module: str, plant: Callable[[str], str]
) -> None:
    as_file = PAGE_AGENT / module
    source = (REPO / as_file).read_text(encoding="utf-8")
    assert eslint(source, as_file) == []
    assert set(eslint(plant(source), as_file)) == {("no-undef", "'MIN_QUIET_MS' is not defined.")}
