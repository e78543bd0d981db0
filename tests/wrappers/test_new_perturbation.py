"""A new perturbation is one module plus its registration: made here, outside the package,
it works through ``perturb``, the ``webharness run`` command and the run's report, with no
other edit.

The module is written by the test into its own folder and registers itself on import with
``register_perturbation``. The command runs in a child process that imports the module
first (``-c "import stamp_perturbation; ...main()"``, the folder on ``PYTHONPATH``): the
same ``main`` as the ``webharness`` script, with the perturbation registered in its
process, as a user's own launcher would do it. The run has two worker processes, which
import the module too (the jobs name it), so it is registered where the episodes play.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest

from webharness.perturbations import PERTURBATIONS, register_perturbation
from webharness.runner import RunConfig, RunFolder, expand_jobs
from webharness.trace.io import load_trace
from webharness.wrappers import PerturbationWrapper, perturb

STAMP = " [stamped]"
MODULE = f'''"""A perturbation of the goal: it ends with a stamp."""

from webharness.perturbations import register_perturbation
from webharness.perturbations.base import record


def stamp(strength, context):
    """The goal ends with "{STAMP.strip()}", logged at step 0."""

    def factory(hooks, rng, instance):
        if strength <= 0:
            return

        def transform(instruction):
            record(hooks, 0, "stamp", strength=strength)
            return instruction + {STAMP!r}

        hooks.instruction_transforms.append(transform)

    return factory


register_perturbation("stamp", stamp)
'''


@pytest.fixture
def stamp_folder(tmp_path: Path) -> Path:
    """A folder holding the new perturbation's module, ``stamp_perturbation.py``."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "stamp_perturbation.py").write_text(MODULE, encoding="utf-8")
    return folder


@pytest.fixture
def stamp(stamp_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The new perturbation, registered in this process by importing its module."""
    monkeypatch.syspath_prepend(str(stamp_folder))
    importlib.import_module("stamp_perturbation")
    try:
        yield
    finally:
        del PERTURBATIONS["stamp"]
        sys.modules.pop("stamp_perturbation", None)


def test_a_registered_perturbation_works_through_perturb(browser, stamp):
    env = perturb(gym.make("WebEval/form-v0", obs_mode="text"), "stamp", strength=1.0)
    try:
        obs, info = env.reset(seed=0)
        assert isinstance(env, PerturbationWrapper) and type(env).__name__ == "StampPerturbation"
        assert obs["goal"].endswith(STAMP)
        assert [e["kind"] for e in info["perturbations"]] == ["stamp"]
        again = gym.make(env.spec)  # Gymnasium finds the made wrapper by its class name
        assert type(again).__name__ == "StampPerturbation" and again.strength == 1.0
        again.close()
    finally:
        env.close()
    clean = perturb(gym.make("WebEval/form-v0", obs_mode="text"), "stamp", strength=0.0)
    try:
        assert not clean.reset(seed=0)[0]["goal"].endswith(STAMP)
    finally:
        clean.close()


def test_a_registered_name_must_be_a_plain_word_and_new(stamp):
    with pytest.raises(ValueError, match="'Stamp,x' must be lowercase"):
        register_perturbation("Stamp,x", PERTURBATIONS["stamp"])
    with pytest.raises(ValueError, match="'stamp' is stamp_perturbation.stamp already"):
        register_perturbation("stamp", PERTURBATIONS["popup"])
    register_perturbation("stamp", PERTURBATIONS["stamp"])  # the same again: nothing changes


def test_a_runs_jobs_name_the_module_a_worker_imports_to_register_it(stamp, tmp_path):
    stacks = ["", "popup", "stamp,popup@1"]
    config = RunConfig(agents=["oracle"], tasks=["form"], seeds=[0], perturbations=stacks)
    jobs = expand_jobs(config, tmp_path)
    assert [job.perturbation_modules for job in jobs] == [[], [], ["stamp_perturbation"]]


def test_a_registered_perturbation_works_through_the_cli_and_the_report(
    browser, stamp_folder, tmp_path
):
    run_dir = tmp_path / "run"
    launcher = "import sys, stamp_perturbation; from webharness.cli import main; sys.exit(main())"
    path = os.pathsep.join(p for p in (str(stamp_folder), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", launcher, "run", "--agents", "oracle", "--tasks", "form"]
        + ["--seeds", "0", "--obs-mode", "text", "--no-screenshots", "--workers", "2"]
        + ["--perturbations", ";stamp@1", "--out", str(run_dir)],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    folder = RunFolder(run_dir)
    stamped = [a for a in folder.read_attempts() if a.perturbations == "stamp@1"]
    assert len(stamped) == 1 and stamped[0].passed
    trace = load_trace(folder.episode_dir(stamped[0].trace_dir))
    assert trace.task.instruction.endswith(STAMP)
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    oracle = summary["runners"]["oracle"]
    assert set(oracle["by_perturbation"]) == {"", "stamp@1"}
    assert [gap["stack"] for gap in oracle["perturbation_gaps"]] == ["stamp@1"]
    assert "| oracle | `stamp@1` |" in (run_dir / "report.md").read_text(encoding="utf-8")
