"""Tasks that declare their own app (``app:``): the env starts one instance per env on its
first reset, plays the spec bound to it, resets it per episode and stops its whole process
group at ``close()``; an app that cannot start makes the reset fail naming its command and
output; and the golden traces that ``GoldenTraceAlignment`` records never touch the
agent's episode (on the library example and on the chores app): they are recorded first,
on an instance of their own, whose requests the agent's instance never sees, and whose
origin the alignment reads as the agent's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from tests.support.episodes import oracle_policy
from tests.support.registry import FIXTURES, registrations_undone
from webharness import register_tasks
from webharness.apps import AppInstance
from webharness.errors import AppError
from webharness.testing.processes import descendants
from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library_tasks"
RESET_CALLS = ("/__reset", "/api/reset", "/api/fixture")  # the two apps' setup endpoints


def _requests(app: AppInstance) -> list[str]:
    """The requests the instance has served so far, as its log has them (``POST /x 200``)."""
    lines = app.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    return [line for line in lines if line.split(" ")[0] in ("GET", "POST")]


def _setup_calls_after_the_start(requests: list[str]) -> list[str]:
    """The setup calls (resets, fixtures) an instance got after the episode's own setup:
    its requests are readiness checks, the setup's calls, then the episode's pages."""
    setup = [any(c in line for c in RESET_CALLS) for line in requests]
    first_setup = setup.index(True)
    started = next(i for i in range(first_setup, len(requests)) if not setup[i])
    return [line for line, called in zip(requests[started:], setup[started:]) if called]


@pytest.fixture
def registered() -> Iterator[None]:
    with registrations_undone():
        yield


@pytest.mark.slow
@pytest.mark.parametrize(
    ("folder", "env_id"),
    [
        (LIBRARY / "delete_book", "Iso/delete_book-v0"),
        (FIXTURES / "chores_app_task", "Iso/chores_own_app-v0"),
    ],
    ids=["library", "chores"],
)
def test_golden_recording_never_touches_the_agents_episode(
    browser: None, registered: None, folder: Path, env_id: str
) -> None:
    register_tasks(folder, "Iso")
    inner = GoldenTraceAlignment(gym.make(env_id, obs_mode="text"), golden_cache=None)
    env = FailureAnnotation(inner)
    try:
        obs, info = env.reset(seed=0)
        agent_app: Any = env.unwrapped.app  # type: ignore[attr-defined]
        policy = oracle_policy(env)
        for _ in range(30):
            obs, reward, terminated, truncated, info = env.step(policy(obs, info))
            if terminated or truncated:
                break
        assert _setup_calls_after_the_start(_requests(agent_app)) == []
        assert info["success"] and reward == 1.0, info["semantic_state"].url
        assert "/login" not in info["semantic_state"].url  # still signed in
        assert info["failure"].code is None and info["alignment"] is not None
        # the two instances' origins are read as one: their start states are the same
        assert info["alignment"].start_similarity == 1.0
        golden_app: Any = inner._golden_env.unwrapped.app  # type: ignore[union-attr]
        assert info["app"] == agent_app.url != golden_app.url  # an instance of its own
        assert any(c in line for line in _requests(golden_app) for c in RESET_CALLS)
        groups = {agent_app.pid, golden_app.pid}
    finally:
        env.close()
    assert env.unwrapped.app is None  # type: ignore[attr-defined]
    assert not agent_app.running and not golden_app.running
    assert None not in groups and not groups & set(descendants())


@pytest.mark.slow
def test_the_env_starts_its_app_resets_it_per_episode_and_stops_it(
    browser: None, registered: None
) -> None:
    (env_id,) = register_tasks(LIBRARY / "report_count", "Own")
    env = gym.make(env_id, obs_mode="text")
    try:
        _, first = env.reset(seed=0)
        app: Any = env.unwrapped.app  # type: ignore[attr-defined]
        assert app.running and first["app"] == app.url
        assert first["semantic_state"].url.startswith(app.url)
        resets = sum("POST /__reset" in line for line in _requests(app))
        _, second = env.reset(seed=1)
        assert env.unwrapped.app is app  # type: ignore[attr-defined]
        # the declared reset, then the task's own setup call: two more
        assert sum("POST /__reset" in line for line in _requests(app)) == resets + 2
        group = app.pid
    finally:
        env.close()
    assert not app.running and group not in descendants()


def test_an_app_that_cannot_start_fails_the_reset_naming_it(
    registered: None, tmp_path: Path
) -> None:
    task = tmp_path / "broken"
    task.mkdir()
    (task / "task.yaml").write_text(
        "id: broken\ncategory: forms\ninstruction: Nothing.\nstart_url: ${APP_URL}/\n"
        "app:\n  command: ['${PYTHON}', '-c', 'print(\"no database here\"); raise SystemExit(3)']\n"
        "success: {kind: js, expression: 'true'}\n",
        encoding="utf-8",
    )
    (env_id,) = register_tasks(task, "Broken")
    env = gym.make(env_id, obs_mode="text")
    try:
        with pytest.raises(AppError) as caught:
            env.reset(seed=0)
    finally:
        env.close()
    message = str(caught.value)
    assert "exited with status 3" in message and "no database here" in message
    assert "raise SystemExit(3)" in message  # the command, as it ran
