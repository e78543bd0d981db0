"""The pre-commit hooks are scripts/lint.sh's checks, one each, and real pre-commit runs them."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
LINT = REPO / "scripts" / "lint.sh"


def lint_checks() -> list[str]:
    """The names in lint.sh's ``CHECKS=(...)``."""
    found = re.search(r"^CHECKS=\(([^)]*)\)$", LINT.read_text(encoding="utf-8"), re.M)
    assert found is not None, "scripts/lint.sh has no CHECKS=(...) line"
    return found.group(1).split()


def hooks() -> list[dict[str, object]]:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    return [hook for repo in config["repos"] for hook in repo["hooks"]]


def test_each_check_of_lint_sh_is_one_hook_that_runs_it_by_name() -> None:
    assert [hook["id"] for hook in hooks()] == lint_checks()
    for hook in hooks():
        assert hook["entry"] == f"scripts/lint.sh {hook['id']}"
        assert hook["language"] == "system" and hook["pass_filenames"] is False


def test_an_unknown_check_is_refused_with_the_list() -> None:
    done = subprocess.run([str(LINT), "nosuch"], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 2
    assert "unknown check 'nosuch'" in done.stderr and "check-yaml" in done.stderr


def test_pre_commit_itself_reads_the_config_and_runs_a_hook(tmp_path: Path) -> None:
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path)}
    pre_commit = REPO / ".venv" / "bin" / "pre-commit"
    done = subprocess.run(
        [str(pre_commit), "validate-config", ".pre-commit-config.yaml"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run(
        [str(pre_commit), "run", "check-yaml", "--all-files"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"check-yaml\.+Passed", done.stdout), done.stdout
