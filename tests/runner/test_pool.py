"""Running a run's jobs: results appended as they finish, resume, chunks, backends."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.conftest import SMALL, run
from tests.support.waiting import wait_until
from webharness.errors import AgentUnavailableError, RunError
from webharness.runner import RunConfig, RunFolder, expand_jobs, job_chunks, prepare_run
from webharness.testing.processes import cmdline, wait_for_exit


def test_every_episode_is_recorded_once_with_its_trace(browser, finished_run):
    folder = RunFolder(finished_run)
    attempts = folder.read_attempts()
    keys = [a.key() for a in attempts]
    assert len(keys) == len(set(keys)) == 2 * 2 * 2
    assert all((folder.episode_dir(a.trace_dir) / "steps.jsonl").is_file() for a in attempts)
    assert json.loads(folder.manifest.read_text())["episodes"] == 8


def test_the_oracle_passes_and_its_runs_follow_the_golden_path(browser, finished_run):
    oracle = [a for a in RunFolder(finished_run).read_attempts() if a.runner == "oracle"]
    assert all(
        a.passed and a.failure_code is None and a.fidelity == pytest.approx(1.0) for a in oracle
    )


def test_a_run_folder_with_results_is_not_overwritten_without_resume(browser, finished_run):
    with pytest.raises(RunError, match="--resume"):
        prepare_run(RunConfig(**SMALL), finished_run, resume=False)


def test_resume_runs_only_what_is_missing(browser, tmp_path):
    folder = RunFolder(tmp_path)
    run(tmp_path, seeds=[0])
    first = folder.read_attempts()
    lines = folder.results.read_text().splitlines()
    folder.results.write_text("\n".join(lines[:2]) + "\n")  # as if killed after two
    _, resumed = run(tmp_path, resume=True, seeds=[0])
    final = folder.read_attempts()
    assert len(resumed) == len(first) - 2
    assert sorted(a.key() for a in final) == sorted(a.key() for a in first)


def test_an_unavailable_llm_stops_the_run_and_counts_nothing(browser, tmp_path, monkeypatch):
    for var in ("WEBHARNESS_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("WEBHARNESS_LLM_MODEL", "some-model")
    with pytest.raises(AgentUnavailableError):
        run(tmp_path, agents=["llm"], tasks=["form"], seeds=[0])
    assert RunFolder(tmp_path).read_attempts() == []


def test_job_chunks_hold_one_env_each_cover_every_job_once_and_come_largest_first(tmp_path):
    config = RunConfig(
        agents=["oracle", "random"],
        tasks=["form", "stats", "async"],
        seeds=list(range(5)),
        perturbations=["", "popup"],
    )
    jobs = expand_jobs(config, tmp_path)
    chunks = job_chunks(jobs, workers=2)
    assert sorted(j.key() for c in chunks for j in c) == sorted(j.key() for j in jobs)
    assert all(len({(j.env_id, j.obs_mode, j.perturbations) for j in c}) == 1 for c in chunks)
    assert max(len(c) for c in chunks) <= -(-len(jobs) // 4)  # at most a quarter of the run each
    assert [len(c) for c in chunks] == sorted((len(c) for c in chunks), reverse=True)
    # One task and many seeds still gives every one of four workers work.
    one_task = expand_jobs(
        RunConfig(agents=["oracle"], tasks=["form"], seeds=list(range(40))), tmp_path
    )
    assert len(job_chunks(one_task, workers=4)) >= 8


def test_two_worker_processes_run_the_same_episodes(browser, tmp_path):
    _, attempts = run(tmp_path, agents=["oracle"], workers=2)
    assert len(attempts) == 4 and all(a.passed for a in attempts)


def _cli_run(out: Path, *options: str) -> list[str]:
    """The ``webharness run`` command line of the oracle over ``form``, into ``out``."""
    return [
        sys.executable,
        "-m",
        "webharness.cli",
        "run",
        "--agents",
        "oracle",
        "--obs-mode",
        "text",
        "--out",
        str(out),
        *options,
    ]


def test_the_run_command_prints_the_summary_and_the_report_path(browser, tmp_path):
    out = subprocess.run(
        _cli_run(tmp_path / "cli", "--tasks", "form", "--seeds", "0"),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    assert "oracle" in out and "100.0%" in out and "report.html" in out


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


@pytest.mark.slow
def test_killing_a_run_does_not_leave_its_workers_behind(browser, tmp_path):
    options = ("--tasks", "form,stats", "--seeds", "0-9", "--workers", "2", "--no-screenshots")
    run = subprocess.Popen(
        _cli_run(tmp_path / "run", *options),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_until(RunFolder(tmp_path / "run").results.exists, 120)  # work is under way
    workers = [pid for pid in _children(run.pid) if b"spawn_main" in cmdline(pid)]
    assert workers, "the run should have started worker processes"
    run.kill()
    run.wait()
    assert wait_for_exit(workers, 30)
