"""The oracle plays the spec bound to the env's running app instance: a golden
``goto('${APP_URL}/books')`` goes to that instance, not to the placeholder origin the
spec as loaded holds (``golden.play.episode_spec``). On a variant of the library app's
``report_count`` whose golden path starts with an absolute ``goto``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest

from tests.support.library import TASKS
from tests.support.registry import registrations_undone
from webharness import register_tasks
from webharness.golden.oracle import OracleAgent
from webharness.golden.play import episode_spec, golden_traces, play_episode
from webharness.spec.app_spec import APP_PLACEHOLDER
from webharness.testing import FAULTS, FaultyAgent

pytestmark = pytest.mark.slow

APP = Path(TASKS).parent / "library_app" / "app.py"
APP_YAML = f"""\
command: ["${{PYTHON}}", "{APP}", --port, "${{PORT}}", --data-dir, "${{DATA_DIR}}"]
ready: {{url: /__ready, status: 200, timeout_s: 20}}
reset: {{method: POST, url: /__reset, status: 200}}
per_worker: true
"""
TASK_YAML = """\
id: count_from_add
category: information
instruction: How many {{genre}} books are available for loan? Answer with the number.
params:
  token: {kind: int, min: 100000, max: 999999}
  genre: {kind: choice, values: [Fiction, Poetry]}
  n: {kind: template, template: "{{genre}}", map: {Fiction: "3", Poetry: "4"}}
start_url: ${APP_URL}/books/add
max_steps: 10
setup:
  - http: {url: "${APP_URL}/__reset", json: {session: "s{{token}}"}, expect: {json: {ok: true}}}
  - cookies: [{name: session, value: "s{{token}}"}]
success: {kind: answer, equals: "{{n}}"}
golden_paths:
  - id: goto-list
    steps:
      - {action: goto, value: "${APP_URL}/books"}
      - {action: select_option, target: {role: combobox, name: Genre}, value: "{{genre}}"}
      - {action: check, target: {role: checkbox, name: Available only}}
      - {action: click, target: {role: button, name: Filter}}
      - {action: send_msg_to_user, value: "{{n}}"}
"""


@pytest.fixture(scope="module")
def env(browser: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[gym.Env]:
    folder = tmp_path_factory.mktemp("tasks")
    (folder / "app.yaml").write_text(APP_YAML)
    (folder / "count_from_add").mkdir()
    (folder / "count_from_add" / "task.yaml").write_text(TASK_YAML)
    with registrations_undone():
        (env_id,) = register_tasks(folder, "LibraryGoto")
        made = gym.make(env_id, obs_mode="text")
        try:
            yield made
        finally:
            made.close()


def test_the_oracle_goes_to_the_running_instance_not_the_placeholder(env):
    trace = play_episode(env, OracleAgent(), 0, screenshots=False)
    app = env.unwrapped.app
    assert app is not None and APP_PLACEHOLDER not in app.url
    assert trace.steps[1].action == f"goto('{app.url}/books')"
    assert trace.steps[4].state.url.startswith(f"{app.url}/books?")  # filtered there
    assert trace.end is not None and trace.end.success
    assert episode_spec(env).app_url == app.url  # type: ignore[union-attr]
    assert env.unwrapped.task_spec.app_url is None  # the spec as loaded stays unbound


def test_golden_recording_and_a_faulty_agent_play_the_bound_spec_too(env):
    (golden,) = golden_traces(env, 1, screenshots=False)
    assert golden.end is not None and golden.end.success
    agent = FaultyAgent(FAULTS["click_heading"], at=3, env=env)
    trace = play_episode(env, agent, 1, screenshots=False)
    assert trace.steps[1].action == f"goto('{env.unwrapped.app.url}/books')"
    assert agent.fault_step == 3
