"""A golden step's ``expect`` is checked while its path is recorded: one that never holds
ends the recording, which is then not sound, naming the step, what it expected and what
the page had. Played as an agent, the oracle does not check it."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest
import yaml

from webharness import TaskSpecError, load_task
from webharness.actions import ReportInfeasible, parse_action
from webharness.envs import WebEvalEnv
from webharness.golden.oracle import MAX_WAITS_PER_STEP, OracleAgent
from webharness.golden.play import SpoiledRecording, golden_traces, recording_fault, require_sound
from webharness.semantic import Element, SemanticState
from webharness.spec.catalogue import task_dir
from webharness.spec.task_spec import TaskSpec, instantiate

SPEC = """\
id: stocked
category: lists
instruction: Open the first book.
start_url: http://127.0.0.1:9/
success: {kind: url, path: /}
golden_paths:
  - id: first
    steps:
      - action: click
        target: {role: link, name: Books}
        expect: {kind: db, collection: books, min_count: 1}
      - action: send_msg_to_user
        value: "3 books"
        expect: {kind: answer, number: 3}
"""
EMPTY = SemanticState(
    url="http://127.0.0.1:9/books",
    elements=[Element(ref="e1", role="link", name="Books")],
    app={"books": []},
)
STOCKED = EMPTY.model_copy(update={"app": {"books": [{"title": "Dune"}]}})


def _oracle(oracle: OracleAgent, tmp_path) -> OracleAgent:
    path = tmp_path / "task.yaml"
    path.write_text(SPEC)
    spec = load_task(path)
    oracle.reset(instantiate(spec, 0, np.random.default_rng(0)).instance, spec)
    return oracle


def _act(oracle: OracleAgent, state: SemanticState) -> str:
    return oracle.act({}, {"semantic_state": state, "perturbations": [], "success": False})


def _reason(action: str) -> str:
    parsed = parse_action(action)
    assert isinstance(parsed, ReportInfeasible), action
    return parsed.reason


def test_an_expect_that_never_holds_ends_the_recording_naming_step_expected_and_seen(
    tmp_path,
):
    oracle = _oracle(OracleAgent.recording("first"), tmp_path)
    assert _act(oracle, EMPTY) == "click('e1')"
    waits = [_act(oracle, EMPTY) for _ in range(MAX_WAITS_PER_STEP)]
    assert all(w.startswith("wait(") for w in waits)
    gave_up = _reason(_act(oracle, EMPTY))
    assert "golden_paths.0.steps.0 (click" in gave_up
    assert '"collection": "books"' in gave_up and "saw 0 of the 0 rows of 'books'" in gave_up
    assert _act(oracle, EMPTY) == "done()"  # nothing more is played


def test_an_expect_that_holds_goes_on_and_an_ending_step_is_checked_before_it_is_played(
    tmp_path,
):
    oracle = _oracle(OracleAgent.recording("first"), tmp_path)
    assert _act(oracle, EMPTY) == "click('e1')"
    assert _act(oracle, STOCKED) == "send_msg_to_user('3 books')"
    wrong = _oracle(OracleAgent.recording("first"), tmp_path)
    wrong._steps[1] = wrong._steps[1].model_copy(update={"value": "4 books"})
    _act(wrong, EMPTY)
    gave_up = _reason(_act(wrong, STOCKED))
    assert "golden_paths.0.steps.1 (send_msg_to_user" in gave_up
    assert "saw the answer '4 books'" in gave_up


def test_played_as_an_agent_the_oracle_does_not_check_expects(tmp_path):
    oracle = _oracle(OracleAgent("first"), tmp_path)
    assert _act(oracle, EMPTY) == "click('e1')"
    assert _act(oracle, EMPTY) == "send_msg_to_user('3 books')"


def test_a_javascript_expect_is_refused_at_load(tmp_path):
    path = tmp_path / "task.yaml"
    path.write_text(
        SPEC.replace(
            "{kind: db, collection: books, min_count: 1}", "{kind: js, expression: 'true'}"
        )
    )
    with pytest.raises(TaskSpecError) as raised:
        load_task(path)
    assert raised.value.field == "golden_paths.0.steps.0.expect"
    assert "no JavaScript runs" in raised.value.problem


@pytest.mark.browser
def test_a_recording_whose_expect_fails_on_the_page_is_not_sound(browser):
    data = yaml.safe_load((task_dir("form") / "task.yaml").read_text(encoding="utf-8"))
    stale = copy.deepcopy(data)
    save = stale["golden_paths"][0]["steps"][6]
    assert save["expect"]["kind"] == "db"
    save["expect"]["count"] = 2  # as a stale server holding yesterday's record would
    spec = TaskSpec.model_validate(stale, context={"file": str(task_dir("form") / "task.yaml")})
    env = WebEvalEnv(spec, obs_mode="text")
    try:
        traces = golden_traces(env, 0, screenshots=False)
    finally:
        env.close()
    faults = {t.golden_path: recording_fault(t) for t in traces}
    assert faults["enter-key"] is None
    fault = faults["save-button"] or ""
    assert "an expect did not hold" in fault and "golden_paths.0.steps.6 (click" in fault
    assert re.search(r"saw 1 of the \d+ rows of 'contacts' match", fault)
    with pytest.raises(SpoiledRecording, match="save-button"):
        require_sound(traces)
