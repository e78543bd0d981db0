"""The run folder's layout on disk, its manifest, and its golden traces."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from webharness.errors import RunError
from webharness.reporting.records import EvalAttempt
from webharness.runner import EpisodeJob, RunConfig, RunFolder

FORM = "WebEval/form-v0"


def test_the_layout_on_disk_is_the_documented_one(tmp_path):
    folder = RunFolder(tmp_path)
    assert folder.results == tmp_path / "results.jsonl"
    assert folder.manifest == tmp_path / "manifest.json"
    assert folder.rescored == tmp_path / "rescored.jsonl"
    assert folder.golden_dir(FORM, 3) == tmp_path / "golden" / "form-v0" / "seed-3"
    clean = EpisodeJob(agent="oracle", env_id=FORM, seed=2, run_dir=str(tmp_path))
    assert folder.trace_dir(clean) == "episodes/oracle/form-v0/clean/seed-2-t0"
    perturbed = EpisodeJob(
        agent="my.agents:Agent",
        env_id=FORM,
        seed=0,
        trial=1,
        perturbations="popup,latency@0.5",
        run_dir=str(tmp_path),
    )
    assert (
        folder.trace_dir(perturbed)
        == "episodes/my.agents_Agent/form-v0/popup+latency-0.5/seed-0-t1"
    )
    assert folder.episode_dir("episodes/x") == tmp_path / "episodes" / "x"
    assert Path(folder) == tmp_path  # a RunFolder goes where its path does


def test_a_folder_without_results_is_not_taken_for_a_run(tmp_path):
    with pytest.raises(RunError, match="no results.jsonl"):
        RunFolder.existing(tmp_path)
    (tmp_path / "results.jsonl").touch()
    assert RunFolder.existing(tmp_path).root == tmp_path


def test_prepare_writes_the_manifest_and_a_resumed_run_says_what_it_continues(tmp_path):
    folder = RunFolder(tmp_path / "run")
    config = RunConfig(agents=["oracle"], tasks=["form"])
    folder.prepare(config, 5)
    first = json.loads(folder.manifest.read_text())
    assert first["config"] == config.model_dump() and first["episodes"] == 5
    folder.prepare(config, 5)
    assert json.loads(folder.manifest.read_text())["resumed_from"] == first["started_at"]


def test_prepare_drops_a_torn_last_result_line(tmp_path):
    folder = RunFolder(tmp_path)
    whole = EvalAttempt(
        scenario_id="WebEval/form-v0", category="form", runner="oracle", seed=0, passed=True
    ).model_dump_json()
    folder.results.write_text(whole + '\n{"torn": ')
    folder.prepare(RunConfig(agents=["oracle"], tasks=["form"]), 1)
    assert folder.results.read_text() == whole + "\n"


def test_golden_traces_are_recorded_once_and_a_half_made_folder_again(
    browser, finished_run, tmp_path
):
    saved = RunFolder(finished_run).golden_dir(FORM, 0)
    folder = RunFolder(tmp_path)
    recorded_into: list[Path] = []

    def record(into: Path) -> None:
        recorded_into.append(into)
        shutil.copytree(saved, into)

    goldens = folder.goldens(FORM, 0, record)
    assert goldens and recorded_into[0].parent == folder.golden_dir(FORM, 0).parent
    assert not recorded_into[0].exists()  # recorded aside, then renamed into place
    assert folder.goldens(FORM, 0, record) == goldens and len(recorded_into) == 1
    first_path = next(p for p in folder.golden_dir(FORM, 0).iterdir())
    (first_path / "steps.jsonl.gz").write_text("{not json\n{nor this\n")  # a damaged one
    assert folder.goldens(FORM, 0, record) == goldens and len(recorded_into) == 2
    assert folder.load_goldens(FORM, 1) == []
