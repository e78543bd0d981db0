"""The team's own stateful example (``examples/library_app``, ``examples/library_tasks``):
registered as it is (``${APP_URL}`` the placeholder origin), each env starts its own
instance from the folder's ``app.yaml`` and stops it at ``close()``, and the oracle passes
every task on seeds 0-1, each golden step's ``expect`` holding right after it is played."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from tests.support.episodes import EpisodeRun, oracle_policy, play
from tests.support.registry import registrations_undone
from webharness import register_tasks
from webharness.apps import AppInstance, load_app
from webharness.golden.oracle import golden_paths
from webharness.spec.catalogue import get_task
from webharness.spec.criteria import CriteriaContext
from webharness.testing.processes import descendants

TASKS = Path(__file__).resolve().parents[2] / "examples" / "library_tasks"
TASK_IDS = ["add_book", "ask_isbn", "delete_book", "edit_filtered", "fix_isbn", "report_count"]


@pytest.fixture(scope="module")
def env_ids(browser: None) -> Iterator[list[str]]:
    spec = load_app(TASKS / "add_book" / "task.yaml")
    assert spec is not None and spec.version == "shelfwise-1"
    with registrations_undone():
        yield register_tasks(TASKS, "Library")


def _unmet(run: EpisodeRun) -> list[Any]:
    """The golden steps whose ``expect`` did not hold right after the oracle played them."""
    instance = run.infos[0]["task"]
    (path,) = golden_paths(get_task(instance.env_id), instance)
    acted = [i for a, i in zip(run.actions, run.infos[1:]) if not a.startswith("wait(")]
    unmet = []
    for step, info in zip(path.steps, acted):
        answer = str(step.value) if step.action.value == "send_msg_to_user" else None
        context = CriteriaContext(info["semantic_state"], final_answer=answer)
        if step.expect is not None and not step.expect.holds(context):
            unmet.append((instance.env_id, instance.seed, step.action.value, step.target))
    return unmet


@pytest.mark.slow
def test_the_oracle_passes_every_example_task_on_seeds_0_and_1(env_ids):
    assert sorted(e.split("/")[1].removesuffix("-v0") for e in env_ids) == TASK_IDS
    failures: list[Any] = []
    apps: list[AppInstance] = []
    pids: set[int | None] = set()
    for env_id in env_ids:
        env = gym.make(env_id, obs_mode="text")
        try:
            for seed in (0, 1):
                run = play(env, oracle_policy(env), seed)
                failures.extend(_unmet(run))
                if not run.success:
                    failures.append((env_id, seed, run.actions, run.last.get("criteria_error")))
            apps.append(env.unwrapped.app)  # one instance served both episodes
            assert run.last["app"] == apps[-1].url
            pids.add(apps[-1].pid)
        finally:
            env.close()
    assert failures == []
    assert len({app.url for app in apps}) == len(env_ids)  # an instance per env
    assert not any(app.running for app in apps)
    assert None not in pids and not pids & set(descendants())
