"""An app of the suite's own, end to end (issue 15): the chores app served from 127.0.0.1
(``tests/support/chores_app.py``: several pages, its state in localStorage, a JSON API
with reset and fixture endpoints, assets from a second origin), and its task folder
outside the package (``tests/fixtures/chores_task``: setup, within, count, current,
eventually, two golden paths). ``webharness run --tasks <folder>`` passes with the oracle
on seeds 0-4 and ``webharness score`` gives the same codes; a faulty agent gets its code
and step through ``register_tasks`` + ``gym.make`` + the wrappers; the setup gives each
seed its own start state; a JS criterion that throws is a ``criteria_error``; a failing
setup, a setup call elsewhere and a scope that matches nothing are errors naming what."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
import yaml

from tests.support.chores_app import ChoresApp, serving
from tests.support.episodes import agent_policy, play
from tests.support.registry import FIXTURES, registrations_undone
from tests.support.wrong_choices import instead
from webharness import SetupError, TaskSpecError, register_tasks
from webharness.cli import main
from webharness.diagnosis.failures import FailureCode, Stage
from webharness.golden import oracle
from webharness.golden.oracle import MAX_WAITS_PER_STEP, OracleAgent
from webharness.reporting.records import read_attempts
from webharness.reporting.render import write_report
from webharness.runner.jobs import EpisodeJob
from webharness.runner.worker import Worker
from webharness.spec.catalogue import task_folder
from webharness.testing import FAULTS, FaultyAgent
from webharness.testing.fault_agent import FaultContext, Planned
from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment

CHORES_TASK = FIXTURES / "chores_task"
SCORED = ("passed", "failure_code", "root_cause", "failure_step", "first_divergence_step")


@pytest.fixture(scope="module")
def app() -> Iterator[ChoresApp]:
    with serving() as running:
        yield running


@pytest.fixture(scope="module")
def chores(browser: None, app: ChoresApp) -> Iterator[str]:
    with registrations_undone():
        (env_id,) = register_tasks(CHORES_TASK, "Chores", variables=app.variables)
        yield env_id


@pytest.fixture(scope="module")
def env(chores: str) -> Iterator[gym.Env]:
    made = gym.make(chores, obs_mode="text")
    yield made
    made.close()


@pytest.fixture
def variant(
    browser: None, app: ChoresApp, tmp_path: Path, request: pytest.FixtureRequest
) -> Callable[[Callable[[dict[str, Any]], None]], str]:
    """Register an edited copy of the chores task (its own namespace); returns its env id."""

    def make(edit: Callable[[dict[str, Any]], None]) -> str:
        data = yaml.safe_load((CHORES_TASK / "task.yaml").read_text())
        edit(data)
        folder = tmp_path / "variant"
        folder.mkdir()
        (folder / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        namespace = "V" + str(abs(hash(request.node.name)))[:8]
        (env_id,) = register_tasks(folder, namespace, variables=app.variables)
        return env_id

    return make


def _cli(app: ChoresApp, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webharness.cli", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **app.variables},
    )


def _codes(path: Path) -> dict[int | None, list[Any]]:
    return {a.seed: [getattr(a, f) for f in SCORED] for a in read_attempts(path)}


def _job(env_id: str, run_dir: Path) -> EpisodeJob:
    return EpisodeJob(
        agent="oracle",
        env_id=env_id,
        task_folder=task_folder(env_id),
        seed=0,
        obs_mode="text",
        screenshots=False,
        run_dir=str(run_dir),
    )


# --- the whole loop ----------------------------------------------------------------------
def test_run_passes_on_seeds_0_to_4_and_score_gives_the_same_codes(browser, app, tmp_path):
    run = tmp_path / "run"
    done = _cli(
        app, "run", "--tasks", str(CHORES_TASK), "--agents", "oracle", "--seeds", "0-4",
        "--obs-mode", "text", "--workers", "2", "--no-screenshots", "--out", str(run),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    attempts = read_attempts(run / "results.jsonl")
    assert sorted(a.seed for a in attempts) == [0, 1, 2, 3, 4]
    assert all(a.passed and not a.criteria_error for a in attempts), attempts
    scored = _cli(app, "score", str(run))
    assert scored.returncode == 0, scored.stderr
    assert _codes(run / "rescored.jsonl") == _codes(run / "results.jsonl")


def test_a_faulty_agent_gets_its_code_and_step_through_the_wrappers(chores):
    env = FailureAnnotation(GoldenTraceAlignment(gym.make(chores, obs_mode="text")))
    try:
        for name, code in (("unknown_ref", "observation_miss"), ("garbage_text", "model_protocol")):
            agent = FaultyAgent(FAULTS[name], at=1, path_id="details")
            info = play(env, agent_policy(agent), seed=2).last
            failure = info["failure"]
            assert (failure.code.value, failure.step) == (code, agent.expected_step()), failure
            assert info["alignment"] is not None and info["task"].env_id == chores
    finally:
        env.close()


def _adding(data: dict[str, Any]) -> None:
    """The task as adding a chore: after the save the board asks for a reminder, a
    ``required`` select the agent has not touched."""
    data["instruction"] = 'On the chores board, add the chore "Walk the cat".'
    data["success"] = {
        "kind": "js",
        "expression": "JSON.parse(localStorage.getItem('chores')).includes('Walk the cat')",
    }
    new_chore = {"role": "textbox", "name": "New chore"}
    data["golden_paths"] = [
        {
            "id": "add",
            "steps": [
                {"action": "fill", "target": new_chore, "value": "Walk the cat"},
                {"action": "click", "target": {"role": "button", "name": "Add"}},
                {"action": "done"},
            ],
        }
    ]


def _another_chore(ctx: FaultContext) -> list[Planned]:
    return [ctx.golden_action.model_copy(update={"text": "Walk the dog"}).dsl()]


def test_a_wrong_chore_added_is_a_wrong_choice_not_a_rejection(variant):
    """After the save the board shows a required "Remind me about it" select with the
    browser's message on it from the moment it appears: untouched by the agent, it is no
    rejection of its input (issue 41)."""
    env_id = variant(_adding)
    fault = instead("other_chore", _another_chore)
    env = FailureAnnotation(GoldenTraceAlignment(gym.make(env_id, obs_mode="text")))
    try:
        run = play(env, agent_policy(FaultyAgent(fault, at=1)), seed=2)
        (remind,) = run.infos[2]["semantic_state"].find("combobox", "Remind me about it")
        assert remind.required and remind.validation_message and not remind.invalid
        failure = run.last["failure"]
        assert (failure.code, failure.step, failure.stage) == (
            FailureCode.TASK_INCOMPLETE,
            1,
            Stage.DECISION,
        ), failure.message
    finally:
        env.close()


def test_list_and_record_take_the_folder(browser, app, monkeypatch, tmp_path, capsys):
    """The tutorial's commands (docs/your-own-app.md): the variables from the environment."""
    for name, value in app.variables.items():
        monkeypatch.setenv(name, value)
    script = tmp_path / "steps.yaml"
    script.write_text("- {action: click, target: {role: button, name: Compact view}}\n")
    with registrations_undone():
        assert main(["list", "--tasks", str(CHORES_TASK)]) == 0
        assert "Local/chores-v0" in capsys.readouterr().out
        argv = ["record", "chores", "--tasks", str(CHORES_TASK), "--script", str(script)]
        assert main(argv) == 0
    recorded = yaml.safe_load(capsys.readouterr().out)[0]["steps"]
    assert recorded[0] == {"action": "click", "target": {"role": "button", "name": "Compact view"}}


# --- setup ---------------------------------------------------------------------------------
def _start(env: gym.Env, app: ChoresApp, seed: int) -> tuple[list[str], list[str], str]:
    """The start state of a seed: the open chores, the server's archive, the fingerprint."""
    _, info = env.reset(seed=seed)
    state = info["semantic_state"]
    items = state.scopes("list", "Open chores")
    open_chores = [n.name.removesuffix(" Details Done") for n in state.nodes if n.scope in items]
    archive = app.boards.archive(str(info["task"].params["board"]))
    assert state.find("button", "Compact view")[0].pressed is True  # the setup's step
    return open_chores, archive, state.fingerprint()


def test_the_setup_seeds_the_start_state_from_the_seed(env, app):
    first, second, again = _start(env, app, 0), _start(env, app, 3), _start(env, app, 0)
    assert first == again
    assert first[0] != second[0] and len(first[0]) == len(second[0]) == 3
    assert first[1] != second[1] and len(first[1]) == 1  # the fixture's archive, per seed
    assert first[2] != second[2]


def test_assets_load_from_their_origin_and_nothing_else_does(env, app):
    _, info = env.reset(seed=1)
    blocked = info["semantic_state"].blocked_requests
    assert sorted(blocked) == sorted(
        [f"{app.assets}/widget.js [script]", f"{app.assets}/api/track [fetch]"]
    )
    base = env.unwrapped
    page = base.episode.session.page
    looks = base.runtime.run(
        page.evaluate(
            "() => [getComputedStyle(document.body).marginTop,"
            " document.querySelector('img').naturalWidth, window.__widgetLoaded ?? null,"
            " window.__CHORES_SAVE_MS__]"
        ),
        10,
    )
    # the stylesheet and the logo came, the script did not; the setup's init script ran
    assert looks == ["32px", 24, None, 300]


def test_a_failing_setup_is_not_executable_naming_the_step(variant, app, tmp_path):
    broken = variant(lambda d: d["setup"].insert(1, {"http": {"url": "${CHORES_URL}/api/broken"}}))
    env = gym.make(broken, obs_mode="text")
    try:
        with pytest.raises(SetupError) as caught:
            env.reset(seed=0)
    finally:
        env.close()
    assert caught.value.index == 1 and caught.value.item == f"http POST {app.url}/api/broken"
    assert "answered 500 (expected 200)" in str(caught.value)
    with Worker() as worker:
        attempt = worker.run(_job(broken, tmp_path / "run"))
    assert attempt.not_executable and not attempt.passed
    assert (attempt.failure_code, attempt.root_cause) == ("runtime_error", "environment")
    assert "setup.1 (http POST" in (attempt.error or "")


def test_a_templated_setup_call_elsewhere_fails_at_reset_naming_it(variant):
    def elsewhere(data: dict[str, Any]) -> None:
        data["params"]["api"] = {"kind": "choice", "values": ["http://127.0.0.1:9"]}
        data["setup"][0]["http"]["url"] = "{{api}}/api/reset"

    env = gym.make(variant(elsewhere), obs_mode="text")
    try:
        with pytest.raises(SetupError, match="http://127.0.0.1:9 is not an origin this task"):
            env.reset(seed=0)
    finally:
        env.close()


# --- criteria and scopes -------------------------------------------------------------------
def test_a_js_criterion_that_throws_is_a_criteria_error_in_info_and_the_report(variant, tmp_path):
    throws = "JSON.parse(localStorage.getItem('no-such-key')).length > 0"
    env_id = variant(lambda d: d.update(success={"kind": "js", "expression": throws}))
    env = gym.make(env_id, obs_mode="text")
    try:
        _, info = env.reset(seed=0)
    finally:
        env.close()
    assert info["criteria_error"].startswith(f"js criterion {throws!r} threw TypeError")
    with Worker() as worker:
        attempt = worker.run(_job(env_id, tmp_path / "run"))
    assert not attempt.passed and "TypeError" in (attempt.criteria_error or "")
    report = write_report(tmp_path / "run", [attempt])["markdown"].read_text()
    assert f"(criteria_error: js criterion {throws!r} threw TypeError" in report


def test_a_scope_that_matches_nothing(variant, monkeypatch, tmp_path):
    """As a golden path: a spec error naming file, field and value. As the agent's own
    move (the oracle playing as an agent): observation_miss at that step."""
    monkeypatch.setattr(oracle, "WAIT_MS", 20)  # the oracle's bounded waits, shortened

    def wrong_scope(data: dict[str, Any]) -> None:
        data["golden_paths"][0]["steps"][0]["target"]["within"]["role"] = "row"

    env_id = variant(wrong_scope)
    golden = GoldenTraceAlignment(gym.make(env_id, obs_mode="text"))
    try:
        with pytest.raises(TaskSpecError) as caught:
            golden.reset(seed=0)
    finally:
        golden.close()
    error = caught.value
    assert error.file == str(tmp_path / "variant" / "task.yaml")
    assert error.field == "golden_paths.0.steps.0.target.within"
    assert error.value["role"] == "row" and "no row named" in str(error)

    env = FailureAnnotation(gym.make(env_id, obs_mode="text"))
    try:
        info = play(env, agent_policy(OracleAgent("board")), seed=0).last
    finally:
        env.close()
    failure = info["failure"]
    assert (failure.code, failure.step) == (FailureCode.OBSERVATION_MISS, MAX_WAITS_PER_STEP + 1)
