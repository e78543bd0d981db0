"""The runner and its reports: results appended as they finish, resume, backends, HTML."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.conftest import wait_until
from webharness.browser.host import LAUNCH_ARGS, find_chromium
from webharness.errors import AgentUnavailableError
from webharness.reporting.records import read_attempts
from webharness.runner.pool import (
    RunConfig,
    RunError,
    _WorkerEnvs,
    expand_jobs,
    job_chunks,
    match_tasks,
    prepare_run,
    run_jobs,
)
from webharness.runner.rescore import report_run, score_run
from webharness.testing.processes import cmdline, wait_for_exit

SMALL = dict(agents=["oracle", "heuristic"], tasks=["form", "stats"], seeds=[0, 1], obs_mode="text")


def run(tmp_path: Path, resume: bool = False, **overrides) -> tuple[RunConfig, list]:
    config = RunConfig(**{**SMALL, **overrides})
    jobs = prepare_run(config, tmp_path, resume=resume)
    return config, run_jobs(jobs, config, tmp_path)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    run(run_dir)
    return run_dir


def test_every_episode_is_recorded_once_with_its_trace(finished_run):
    attempts = read_attempts(finished_run / "results.jsonl")
    keys = [a.key() for a in attempts]
    assert len(keys) == len(set(keys)) == 2 * 2 * 2
    assert all((finished_run / a.trace_dir / "steps.jsonl").is_file() for a in attempts)
    assert json.loads((finished_run / "manifest.json").read_text())["episodes"] == 8


def test_the_oracle_passes_and_its_runs_follow_the_golden_path(finished_run):
    oracle = [a for a in read_attempts(finished_run / "results.jsonl") if a.runner == "oracle"]
    assert all(
        a.passed and a.failure_code is None and a.fidelity == pytest.approx(1.0) for a in oracle
    )


def test_a_run_folder_with_results_is_not_overwritten_without_resume(finished_run):
    with pytest.raises(RunError, match="--resume"):
        prepare_run(RunConfig(**SMALL), finished_run, resume=False)


def test_resume_runs_only_what_is_missing(tmp_path):
    run(tmp_path, seeds=[0])
    first = read_attempts(tmp_path / "results.jsonl")
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    (tmp_path / "results.jsonl").write_text("\n".join(lines[:2]) + "\n")  # as if killed after two
    _, resumed = run(tmp_path, resume=True, seeds=[0])
    final = read_attempts(tmp_path / "results.jsonl")
    assert len(resumed) == len(first) - 2
    assert sorted(a.key() for a in final) == sorted(a.key() for a in first)


def test_rescoring_saved_traces_offline_gives_the_same_results(finished_run):
    live = read_attempts(finished_run / "results.jsonl")
    offline = {a.key(): a for a in score_run(finished_run)}
    for attempt in live:
        again = offline[attempt.key()]
        assert (
            again.passed,
            again.failure_code,
            again.root_cause,
            again.failure_step,
            again.first_divergence_step,
        ) == (
            attempt.passed,
            attempt.failure_code,
            attempt.root_cause,
            attempt.failure_step,
            attempt.first_divergence_step,
        )


def test_the_html_report_renders_in_a_browser_without_errors(finished_run):
    paths = report_run(finished_run)
    html = paths["html"]
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), args=list(LAUNCH_ARGS))
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(html.resolve().as_uri())
        charts = page.locator("svg").count()
        page.locator("details").first.evaluate("d => d.open = true")
        timeline_images = page.locator("details img").count()
        visible = page.locator("details img").first.is_visible()
        browser.close()
    assert errors == []
    assert charts >= 2 and timeline_images > 0 and visible  # success by category, steps
    assert (finished_run / "report.md").read_text().startswith("#")


def test_unknown_task_patterns_are_refused_with_a_suggestion():
    with pytest.raises(RunError, match="Did you mean"):
        match_tasks(["WebEval/fomr-v0"])
    assert match_tasks(["WebEval/form*"]) == ["WebEval/form-v0"]


def test_an_unavailable_llm_stops_the_run_and_counts_nothing(tmp_path, monkeypatch):
    for var in ("WEBHARNESS_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("WEBHARNESS_LLM_MODEL", "some-model")
    with pytest.raises(AgentUnavailableError):
        run(tmp_path, agents=["llm"], tasks=["form"], seeds=[0])
    assert read_attempts(tmp_path / "results.jsonl") == []


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


def test_a_worker_moving_to_another_task_closes_its_envs_and_lets_its_goldens_go():
    worker = _WorkerEnvs()
    try:
        form = worker.get("WebEval/form-v0", "text", "")
        form.reset(seed=0)  # holds a page and a ready next one
        worker.goldens = {("WebEval/form-v0", 0): [], ("WebEval/form-v0", 1): []}
        assert worker.get("WebEval/form-v0", "text", "") is form  # same task: kept
        worker.get("WebEval/form-v0", "both", "")
        assert len(worker.envs) == 2 and len(worker.goldens) == 2
        worker.get("WebEval/stats-v0", "text", "")
        assert list(worker.envs) == [("WebEval/stats-v0", "text", "")]
        assert worker.goldens == {}
        assert form.unwrapped.runtime is None  # closed: no page held any more
    finally:
        worker.close()


def test_two_worker_processes_run_the_same_episodes(tmp_path):
    _, attempts = run(tmp_path, agents=["oracle"], workers=2)
    assert len(attempts) == 4 and all(a.passed for a in attempts)


@pytest.mark.slow
def test_the_ray_backend_runs_the_same_episodes_on_a_local_ray(tmp_path):
    pytest.importorskip(
        "ray", reason="Ray is in the dev extra; install it with pip install -e .[dev]"
    )
    _, attempts = run(
        tmp_path, agents=["oracle"], tasks=["form"], seeds=[0, 1], backend="ray", workers=2
    )
    assert sorted(a.seed for a in attempts) == [0, 1] and all(a.passed for a in attempts)


def test_the_run_command_prints_the_summary_and_the_report_path(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "webharness.cli",
            "run",
            "--agents",
            "oracle",
            "--tasks",
            "form",
            "--seeds",
            "0",
            "--obs-mode",
            "text",
            "--out",
            str(tmp_path / "cli"),
        ],
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
def test_killing_a_run_does_not_leave_its_workers_behind(tmp_path):
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "webharness.cli",
            "run",
            "--agents",
            "oracle",
            "--tasks",
            "form,stats",
            "--seeds",
            "0-9",
            "--workers",
            "2",
            "--obs-mode",
            "text",
            "--no-screenshots",
            "--out",
            str(tmp_path / "run"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_until((tmp_path / "run" / "results.jsonl").exists, 120)  # work is under way
    workers = [pid for pid in _children(run.pid) if b"spawn_main" in cmdline(pid)]
    assert workers, "the run should have started worker processes"
    run.kill()
    run.wait()
    assert wait_for_exit(workers, 30)


def test_the_tasks_trace_rules_are_scored_per_phase(finished_run):
    from webharness.runner.rescore import rescore

    oracle = next(
        a
        for a in read_attempts(finished_run / "results.jsonl")
        if a.runner == "oracle" and "form" in a.scenario_id
    )
    quitter = next(
        a
        for a in read_attempts(finished_run / "results.jsonl")
        if a.runner == "heuristic" and "form" in a.scenario_id
    )
    good = rescore(finished_run, oracle)[1].rules
    assert (
        good is not None
        and good.score == 1.0
        and set(good.phases) == {"fill", "submit", "navigate"}
    )
    other = rescore(finished_run, quitter)[1].rules
    assert other is not None and 0.0 <= other.score <= 1.0
