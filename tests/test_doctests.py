"""The examples in the docstrings: those of ``webharness.envs`` and ``webharness.wrappers``,
which ``--doctest-modules`` cannot collect (their folders install as subpackages of
``webharness`` through setuptools' ``package-dir``, so pytest would import them a second
time under another name), and what the package's examples leave behind."""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import webharness.envs
import webharness.wrappers

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE_THE_PACKAGE_FOLDER = [
    name
    for package in (webharness.envs, webharness.wrappers)
    for _, name, _ in pkgutil.iter_modules(package.__path__, f"{package.__name__}.")
]


@pytest.mark.parametrize("module_name", OUTSIDE_THE_PACKAGE_FOLDER)
def test_the_examples_of_envs_and_wrappers_run(browser, module_name):
    module = importlib.import_module(module_name)
    runner, report = doctest.DocTestRunner(), []
    for test in doctest.DocTestFinder().find(module):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_the_package_s_examples_leave_nothing_in_the_system_s_temporary_folder(tmp_path):
    """They run in a process of their own whose temporary folder is new: only pytest's own
    folder may be left in it."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "webharness"],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(temp)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert [p.name for p in temp.iterdir() if not p.name.startswith("pytest-of-")] == []
