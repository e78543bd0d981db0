"""External MCP agents in ``webharness run``: one process per episode, started with the
episode's MCP endpoint, diagnosed like a Python agent making the same moves, and ended
with its own ending however its process ends; no process it started is left behind.

One run plays every agent (each a scripted process of ``tests.support.mcp_agent_process``)
on form-v0, seed 0, beside the DSL twins (``tests.support.replay_agent``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_clients import oracle_actions, tool_call
from webharness.agents.specs import parse_agent_spec
from webharness.reporting.records import read_attempts
from webharness.testing.processes import wait_for_exit

REPO = Path(__file__).resolve().parents[2]
TASK, SEED = "WebEval/form-v0", 0
AGENT = f"{sys.executable} -m tests.support.mcp_agent_process --mcp {{mcp_url}}"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def golden(browser: None) -> list[str]:
    """The DSL actions of the oracle's golden path on the seed."""
    return oracle_actions(TASK, SEED)


def false_success(actions: list[str]) -> list[str]:
    """The golden path without its last click (Save), then done()."""
    save = max(i for i, a in enumerate(actions) if a.startswith("click("))
    return [*actions[:save], "done()"]


@pytest.fixture(scope="module")
def run(golden: list[str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``webharness run`` of every agent; its attempts by label, and its folder."""
    folder = tmp_path_factory.mktemp("external")

    def calls_file(name: str, actions: list[str]) -> Path:
        path = folder / f"{name}.json"
        path.write_text(json.dumps([list(tool_call(a)) for a in actions]))
        return path

    def dsl_file(name: str, actions: list[str]) -> Path:
        path = folder / f"{name}.dsl.json"
        path.write_text(json.dumps(actions))
        return path

    partial = golden[:1]
    faulty, part = calls_file("fs", false_success(golden)), calls_file("p", partial)
    replay = "tests.support.replay_agent:ReplayAgent"
    printed_dsl = dsl_file("p", [*partial, "send_msg_to_user('Saved it')"])
    agents = {
        "golden": f'mcp[command="{AGENT} --calls {calls_file("golden", golden)}"]',
        "false_success": f'mcp[command="{AGENT} --calls {faulty}"]',
        "false_success_dsl": f"{replay}[actions_file={dsl_file('fs', false_success(golden))}]",
        "printed": f"mcp[command=\"{AGENT} --calls {part} --print 'Saved it'\"]",
        "printed_dsl": f"{replay}[actions_file={printed_dsl}]",
        "exit": f'mcp[command="{AGENT} --calls {part} --then exit"]',
        "fail": f'mcp[command="{AGENT} --calls {part} --then fail"]',
        "crash": f'mcp[command="{AGENT} --calls {part} --then crash"]',
        "hang": f'mcp[command="{AGENT} --calls {part} --then hang",timeout_s=8]',
        "disconnect": f'mcp[command="{AGENT} --calls {part} --then disconnect",exit_grace_s=1]',
    }
    out = folder / "run"
    done = subprocess.run(
        [sys.executable, "-m", "webharness.cli", "run", "--agents", ",".join(agents.values()),
         "--tasks", "form", "--seeds", str(SEED), "--workers", "2", "--obs-mode", "text",
         "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    attempts = {a.runner: a for a in read_attempts(out / "results.jsonl")}
    by_name = {name: attempts[parse_agent_spec(spec).label] for name, spec in agents.items()}
    return {"attempts": by_name, "out": out}


def test_an_agent_playing_the_golden_path_passes(run: dict[str, Any]) -> None:
    golden = run["attempts"]["golden"]
    assert golden.passed and not golden.not_executable, golden.failure_message
    assert golden.failure_code is None and golden.progress_rate == 1.0


def test_its_episode_folder_keeps_its_output_and_config(run: dict[str, Any]) -> None:
    episode = run["out"] / run["attempts"]["golden"].trace_dir
    config = json.loads((episode / "mcp.json").read_text())
    assert config["mcpServers"]["webharness"]["url"].startswith("http://127.0.0.1:")
    assert "browser_click: ok" in (episode / "agent.stderr").read_text()
    assert (episode / "agent.stdout").exists()


@pytest.mark.parametrize("name", ["false_success", "printed"])
def test_a_faulty_agent_gets_its_dsl_twins_diagnosis(run: dict[str, Any], name: str) -> None:
    mcp, dsl = run["attempts"][name], run["attempts"][f"{name}_dsl"]
    assert not mcp.passed
    keys = ("failure_code", "failure_step", "root_cause", "false_success", "steps", "ended_by")
    assert {k: getattr(mcp, k) for k in keys} == {k: getattr(dsl, k) for k in keys}


@pytest.mark.parametrize(
    ("name", "ending"),
    [
        ("printed", "send_msg_to_user"),
        ("exit", "agent_exit"),
        ("fail", "agent_error"),
        ("crash", "agent_crash"),
        ("hang", "agent_timeout"),
        ("disconnect", "agent_disconnect"),
    ],
)
def test_each_way_a_process_ends_is_its_own_ending_and_the_agents_fault(
    run: dict[str, Any], name: str, ending: str
) -> None:
    attempt = run["attempts"][name]
    assert attempt.ended_by == ending
    assert not attempt.passed and not attempt.not_executable
    assert attempt.failure_code is not None and attempt.failure_code != "runtime_error"


def test_the_report_shows_how_episodes_ended(run: dict[str, Any]) -> None:
    report = (run["out"] / "report.md").read_text()
    assert "## How episodes ended" in report
    for ending in ("agent_timeout", "agent_crash", "agent_disconnect", "agent_error"):
        assert f"| {ending} |" in report


def test_a_hung_agents_process_group_is_ended_with_it(run: dict[str, Any]) -> None:
    episode = run["out"] / run["attempts"]["hang"].trace_dir
    child = int((episode / "child.pid").read_text())
    # Ended: gone, or a zombie that init has yet to reap (its parent, the agent, is gone).
    assert wait_for_exit({child}, 10)
