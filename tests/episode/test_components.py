"""Real component libraries with shadow DOM (Shoelace, Ionic, and Fluent UI 3, whose roles,
names and states live in ElementInternals; tests/fixtures/components_site,
installed by scripts/setup_components.sh): the oracle plays each task of
tests/fixtures/components_tasks under the failure annotation, and nothing is charged to
it: no harness-side miss (an unnamed field, a click refused as covered by its component's
host, an observation taken before a lazily loaded part rendered) shows as the agent's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.episodes import oracle_policy, play
from webharness import load_task
from webharness.envs import WebEvalEnv
from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment

FIXTURES = Path(__file__).parents[1] / "fixtures"
LIBRARIES = FIXTURES / "components_site" / "node_modules"
TASKS = sorted((FIXTURES / "components_tasks").glob("*.yaml"))


@pytest.fixture(scope="module")
def installed() -> None:
    # Not a skip: CI installs them (scripts/setup.sh), and a missing corpus is a failure.
    for package in ("@shoelace-style/shoelace", "@ionic/core", "@fluentui/web-components"):
        assert (LIBRARIES / package).is_dir(), (
            f"{package} is not installed in {LIBRARIES}: run scripts/setup_components.sh"
        )


@pytest.mark.parametrize("task", TASKS, ids=[task.stem for task in TASKS])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_oracle_passes_a_component_library_task_with_no_failure(browser, installed, task, seed):
    spec = load_task(task)
    env = FailureAnnotation(GoldenTraceAlignment(WebEvalEnv(spec, obs_mode="text")))
    try:
        run = play(env, oracle_policy(env, spec=spec), seed=seed)
    finally:
        env.close()
    results = [info["action_result"] for info in run.infos[1:]]
    assert all(result.ok for result in results), [r.message for r in results if not r.ok]
    failure = run.last["failure"]
    assert run.last["success"] and failure.passed, failure.message
    assert failure.code is None and not failure.step_notes
