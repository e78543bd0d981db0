"""Every perturbation works on a task of an app of one's own (the chores app on 127.0.0.1,
its task folder outside the package): at strength 0.5 it does something, and the oracle
still passes."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import pytest

from tests.support.chores_app import serving
from tests.support.episodes import oracle_policy, play
from tests.support.registry import FIXTURES, registrations_undone
from webharness import register_tasks
from webharness.perturbations import PERTURBATIONS
from webharness.wrappers.perturbations import WRAPPERS

# At half strength a perturbation fires on some seeds only; seed 5 sees each but one.
SEEDS = {"dom_replacement": 7}


@pytest.fixture(scope="module")
def chores(browser: None) -> Iterator[gym.Env]:
    with serving() as app, registrations_undone():
        (env_id,) = register_tasks(FIXTURES / "chores_task", "Chores", variables=app.variables)
        env = gym.make(env_id, obs_mode="text")
        yield env
        env.close()


@pytest.mark.parametrize("name", list(PERTURBATIONS))
def test_the_oracle_passes_under_each_perturbation_at_half_strength(chores, name):
    chores.unwrapped.hook_factories.clear()
    env = WRAPPERS[name](chores, 0.5)
    try:
        run = play(env, oracle_policy(env, "details"), seed=SEEDS.get(name, 5))
    finally:
        chores.unwrapped.hook_factories.clear()
    kinds = {e["kind"] for info in run.infos for e in info["perturbations"]}
    assert name in kinds, (name, run.actions)
    assert run.success, (name, run.actions, run.last["perturbations"], run.last["criteria_error"])
