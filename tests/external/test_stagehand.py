"""Stagehand, an agent library with a CDP client of its own (not Playwright's), comes in
unchanged through the runner's own-browser door: ``cdp[command="node form_agent.mjs
{cdp_url} {goal}"]`` (``tests/fixtures/stagehand``, installed by
``scripts/setup_stagehand.sh``). Its agent uses Stagehand's locators and no model. It plays
form-v0's golden path step for step on seeds 0-1, and one that never saves gets the
diagnosis the Playwright script's twin gets (``test_cdp_agent_in_runner.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.agent_runs import REPO, assert_golden_path_followed, run_agents
from webharness.trace.io import load_trace

FIXTURE = REPO / "tests" / "fixtures" / "stagehand"
AGENT = f"node {FIXTURE / 'form_agent.mjs'} {{cdp_url}} {{goal}}"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def run(browser: None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not (FIXTURE / "node_modules" / "@browserbasehq" / "stagehand").is_dir():
        pytest.fail("Stagehand is not installed: run scripts/setup_stagehand.sh")
    out = tmp_path_factory.mktemp("stagehand") / "run"
    agents = {"golden": f'cdp[command="{AGENT}"]', "no_save": f'cdp[command="{AGENT} no-save"]'}
    return {"attempts": run_agents(agents, ["form"], "0-1", out), "out": out}


def test_stagehand_plays_the_golden_path_step_for_step(run: dict[str, Any]) -> None:
    golden = run["attempts"]["golden"]
    assert_golden_path_followed(golden, seeds=2)
    for attempt in golden:
        actions = [s.action or "" for s in load_trace(run["out"] / attempt.trace_dir).steps]
        # Its clicks are mouse clicks, its fills typing runs, its choice of a country a script.
        assert actions[1].startswith("mouse_click(") and actions[2].startswith("keyboard_type(")
        assert actions[5].startswith("script(")


def test_stagehand_that_never_saves_gets_its_twins_diagnosis(run: dict[str, Any]) -> None:
    no_save = run["attempts"]["no_save"]
    assert len(no_save) == 2
    for attempt in no_save:
        assert not attempt.passed and attempt.false_success and not attempt.not_executable
        assert attempt.failure_code == "task_incomplete" and attempt.root_cause == "decision"
        assert attempt.first_divergence_step == attempt.steps  # the answer instead of Save
