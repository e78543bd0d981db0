"""A golden step whose ``within`` scope is not on the page: a spec error naming the file,
field and value when the path is recorded as a golden trace; an action on a ref that was
never issued (so ``observation_miss``) when the oracle plays as an agent."""

from __future__ import annotations

import numpy as np
import pytest

from webharness import TaskSpecError, load_task
from webharness.golden.oracle import MAX_WAITS_PER_STEP, NEVER_ISSUED_REF, OracleAgent
from webharness.semantic import Element, PageNode, SemanticState
from webharness.spec.task_spec import instantiate

SPEC = """\
id: scoped
category: lists
instruction: Mark the first chore as done.
start_url: http://127.0.0.1:9/
success: {kind: url, path: /}
golden_paths:
  - id: by-item
    steps:
      - {action: click, target: {role: link, name: Board}}
      - action: click
        target: {role: button, name: Done, within: {role: list, name: Open jobs}}
      - {action: done}
"""
STATE = SemanticState(
    elements=[
        Element(ref="e1", role="link", name="Board"),
        Element(ref="e3", role="button", name="Done", scope="e2"),
    ],
    nodes=[PageNode(ref="e2", role="list", name="Open chores")],
)


def _play(oracle: OracleAgent, tmp_path) -> list[str]:
    path = tmp_path / "task.yaml"
    path.write_text(SPEC)
    spec = load_task(path)
    task = instantiate(spec, 0, np.random.default_rng(0))
    oracle.reset(task.instance, spec)
    info = {"semantic_state": STATE, "perturbations": [], "success": False}
    return [oracle.act({}, info) for _ in range(MAX_WAITS_PER_STEP + 3)]


def test_a_missing_scope_in_a_golden_trace_is_a_spec_error_naming_file_field_and_value(
    tmp_path,
):
    with pytest.raises(TaskSpecError) as caught:
        _play(OracleAgent.recording("by-item"), tmp_path)
    error = caught.value
    assert error.file == str(tmp_path / "task.yaml")
    assert error.field == "golden_paths.0.steps.1.target.within"
    assert error.value == {"role": "list", "name": "Open jobs", "exact": True}
    assert "no list named 'Open jobs' is on the page" in str(error)


def test_a_missing_scope_played_as_an_agent_acts_on_a_ref_never_issued(tmp_path):
    actions = _play(OracleAgent("by-item"), tmp_path)
    waits = ["wait(1000)"] * MAX_WAITS_PER_STEP
    assert actions[: MAX_WAITS_PER_STEP + 3] == [
        "click('e1')",
        *waits,
        f"click('{NEVER_ISSUED_REF}')",
        "done()",
    ]
