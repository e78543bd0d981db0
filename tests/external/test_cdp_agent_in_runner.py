"""Agents that drive their own browser, in ``webharness run --agents 'cdp[command=...]'``: a
plain Playwright script (``tests.support.playwright_cdp_agent``) connected to ``{cdp_url}``
plays form-v0 on seeds 0-1, a faulty one is diagnosed, a hung one is ended with everything
it started, and an agent's answer is read from its ``{result_file}``."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from tests.support.agent_runs import assert_golden_path_followed, run_agents
from webharness.trace.io import load_trace

AGENT = f"{sys.executable} -m tests.support.playwright_cdp_agent --cdp {{cdp_url}} --goal {{goal}}"
RESULT = f"{sys.executable} -m tests.support.result_file_agent --result {{result_file}}"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def run(browser: None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("cdp") / "run"
    agents = {
        "golden": f'cdp[command="{AGENT}"]',
        "no_save": f'cdp[command="{AGENT} --fault no-save"]',
        "hang": 'cdp[command="sleep 600",timeout_s=3]',
        "asker": f'cdp[command="{AGENT} --ask {{ask_url}}"]',
        "file": f'cdp[command="{RESULT} --answer Saved.",answer=file]',
        "garbage": f'cdp[command="{RESULT} --garbage",answer=file]',
    }
    return {"attempts": run_agents(agents, ["form"], "0-1", out), "out": out}


def test_a_playwright_script_passes_every_seed(run: dict[str, Any]) -> None:
    assert_golden_path_followed(run["attempts"]["golden"], seeds=2)


def test_a_script_that_never_saves_is_a_false_success_where_it_stopped(
    run: dict[str, Any],
) -> None:
    for attempt in run["attempts"]["no_save"]:
        assert not attempt.passed and attempt.false_success and not attempt.not_executable
        assert attempt.failure_code == "task_incomplete" and attempt.root_cause == "decision"
        assert attempt.first_divergence_step == attempt.steps  # the answer instead of Save


def test_a_hung_agent_is_timed_out_and_the_trace_keeps_its_folder(run: dict[str, Any]) -> None:
    for attempt in run["attempts"]["hang"]:
        assert attempt.ended_by == "agent_timeout" and not attempt.not_executable
        assert (run["out"] / attempt.trace_dir / "agent.stdout").exists()


def test_a_question_at_ask_url_is_the_episodes_ask_user_step(run: dict[str, Any]) -> None:
    for attempt in run["attempts"]["asker"]:
        trace = load_trace(run["out"] / attempt.trace_dir)
        actions = [s.action or "" for s in trace.steps]
        assert actions[1] == "ask_user('Should the contact be saved?')"
        assert "the user said" in (run["out"] / attempt.trace_dir / "agent.stderr").read_text()
        assert attempt.passed  # then it did the task


def test_an_answer_in_the_result_file_ends_the_episode_and_a_bad_one_is_the_agents_error(
    run: dict[str, Any],
) -> None:
    for attempt in run["attempts"]["file"]:  # it did nothing but answer: a false success
        end = load_trace(run["out"] / attempt.trace_dir).end
        assert end is not None and end.final_answer == "Saved."
        assert attempt.ended_by == "send_msg_to_user"
        assert not attempt.passed and attempt.false_success
    for attempt in run["attempts"]["garbage"]:
        end = load_trace(run["out"] / attempt.trace_dir).end
        assert attempt.ended_by == "agent_error" and not attempt.not_executable
        assert end is not None and "result.json is not JSON" in (end.error or "")
