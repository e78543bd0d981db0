"""A task folder of one's own, end to end (``tests/fixtures/notes_task``: a local site, two
golden paths, outside the package). Registered with ``register_tasks``, it plays under
``gym.make`` with the diagnosis wrappers and ``RecordTrace``, the oracle passing on both
paths; a spec given to ``WebEvalEnv`` without registering it gets golden traces too;
``webharness run --tasks <folder>`` plays it in worker processes and reports it; and
``webharness score`` gives the same codes on the run folder, on the RecordTrace folder and
as the live wrappers did."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from tests.support.episodes import agent_policy, play
from tests.support.registry import NOTES_TASK, registrations_undone
from webharness import load_task, register_tasks
from webharness.agents.random_agent import RandomAgent
from webharness.browser.host import BROWSER_ENV_VAR
from webharness.cli import main
from webharness.envs import WebEvalEnv
from webharness.golden.oracle import OracleAgent
from webharness.reporting.records import read_attempts
from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment, RecordTrace

ENV_ID = "Local/notes-v0"
# (agent, seed, golden path the oracle plays): both paths, and an agent that fails
EPISODES = [("oracle", 0, "add-button"), ("oracle", 1, "enter-key")]
EPISODES += [("random", 0, None), ("random", 1, None)]
SCORED = ("passed", "failure_code", "root_cause", "failure_step", "first_divergence_step")


@pytest.fixture(scope="module")
def registered(browser: None) -> Iterator[str]:
    with registrations_undone():
        assert register_tasks(NOTES_TASK) == [ENV_ID]
        yield ENV_ID


@pytest.fixture(scope="module")
def recorded(
    registered: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[tuple[str, int], dict[str, Any]]]:
    """The episodes played through the wrappers: the RecordTrace folder, the last infos."""
    folder = tmp_path_factory.mktemp("traces")
    recorder = RecordTrace(gym.make(registered, obs_mode="text"), folder, screenshots=False)
    env = FailureAnnotation(GoldenTraceAlignment(recorder))
    infos = {}
    try:
        for name, seed, path in EPISODES:
            agent = OracleAgent(path) if name == "oracle" else RandomAgent()
            recorder.agent = name
            infos[name, seed] = play(env, agent_policy(agent), seed).last
    finally:
        env.close()
    return folder, infos


def _cli(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webharness.cli", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **env},
    )


def _codes(rescored: Path) -> dict[tuple[str, int | None], list[Any]]:
    return {(a.runner, a.seed): [getattr(a, f) for f in SCORED] for a in read_attempts(rescored)}


def test_the_oracle_passes_both_golden_paths_under_the_wrappers(recorded):
    _, infos = recorded
    for seed in (0, 1):
        info = infos["oracle", seed]
        assert info["success"] and info["failure"].passed, info["failure"]
        assert info["alignment"].fidelity == pytest.approx(1.0)
        assert info["task"].env_id == ENV_ID
    assert [infos["oracle", s]["alignment"].golden_path for s in (0, 1)] == [
        "add-button",
        "enter-key",
    ]
    assert not infos["random", 0]["success"] and infos["random", 0]["failure"].code is not None


def test_a_spec_given_to_the_env_gets_golden_traces_without_being_registered(browser):
    spec = load_task(NOTES_TASK / "task.yaml")  # never registered: WebEval/notes-v0
    env = FailureAnnotation(GoldenTraceAlignment(WebEvalEnv(spec, obs_mode="text")))
    try:
        oracle = OracleAgent()
        obs, info = env.reset(seed=3)
        oracle.reset(info["task"], spec)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
            done = terminated or truncated
    finally:
        env.close()
    assert info["alignment"] is not None and info["alignment"].progress_rate == 1.0
    assert info["failure"].passed


def test_run_score_and_the_report_work_on_the_folder(recorded, tmp_path):
    traces, infos = recorded
    run = tmp_path / "run"
    done = _cli(
        "run", "--tasks", str(NOTES_TASK), "--agents", "oracle,random", "--seeds", "0-1",
        "--obs-mode", "text", "--workers", "2", "--no-screenshots", "--out", str(run),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ENV_ID in (run / "report.md").read_text()  # the task is listed in the report
    oracle = [a for a in read_attempts(run / "results.jsonl") if a.runner == "oracle"]
    assert len(oracle) == 2 and all(a.passed for a in oracle)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["config"]["task_folders"] == [{"path": str(NOTES_TASK), "namespace": "Local"}]
    resumed = _cli("run", "--tasks", str(NOTES_TASK), "--agents", "oracle,random", "--seeds",
                   "0-1", "--out", str(run), "--resume")  # fmt: skip
    assert resumed.returncode == 0 and "episodes to run: 0 of 4" in resumed.stderr

    assert main(["score", str(run)]) == 0
    unregistered = _cli("score", str(traces))  # a new process: the task is not registered
    assert unregistered.returncode == 2 and "--tasks <task folder>" in unregistered.stderr
    scored = _cli("score", str(traces), "--tasks", str(NOTES_TASK))
    assert scored.returncode == 0, scored.stderr
    from_run, from_traces = _codes(run / "rescored.jsonl"), _codes(traces / "rescored.jsonl")
    assert from_traces == {k: v for k, v in from_run.items() if k in from_traces}
    assert sorted(from_traces) == sorted(from_run) == sorted((n, s) for n, s, _ in EPISODES)
    live = {k: info["failure"].code for k, info in infos.items()}
    assert {k: v[1] for k, v in from_traces.items()} == {
        k: code.value if code else None for k, code in live.items()
    }
    # The golden traces were kept in the trace folder: scoring again needs no browser.
    no_browser = {BROWSER_ENV_VAR: "/no-browser"}
    again = _cli("score", str(traces), "--tasks", str(NOTES_TASK), **no_browser)
    assert again.returncode == 0, again.stderr
    assert _codes(traces / "rescored.jsonl") == from_traces


def test_demo_and_record_take_the_folder(registered, tmp_path, capsys):
    assert main(["demo", "--tasks", str(NOTES_TASK), "--out", str(tmp_path / "d.png")]) == 0
    assert "success: True" in capsys.readouterr().out
    script = tmp_path / "steps.yaml"
    script.write_text(
        "- {action: fill, target: {role: textbox, name: Note}, value: Water the plants}\n"
        "- {action: click, target: {role: button, name: Add note}}\n"
    )
    argv = ["record", "notes", "--tasks", str(NOTES_TASK.parent), "--script", str(script)]
    assert main(argv) == 0
    assert "name: Add note" in capsys.readouterr().out
