"""Every registered scenario x every golden path: the oracle plays it to success, each
step's ``expect`` holds right after it, and ending at once fails. Grows with the catalogue:
a new task folder is covered here without a line of test code."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.episodes import golden_failures, oracle_seeds, play
from webharness import miniwob
from webharness.envs import registered_ids
from webharness.spec.catalogue import get_task

GOLDEN_PATHS = [
    (env_id, path.id) for env_id in registered_ids() for path in get_task(env_id).golden_paths
]
# Envs that play a path's seeds at once, where a scenario's pages wait seconds on seeded
# timers (async's report): the waiting happens in the pages, not in Python. Elsewhere one
# env plays them in turn; typing into a contenteditable (richtext's type-and-shortcut) was
# seen to fail with three envs of one browser typing at once.
ENVS_PER_PATH = {"WebEval/async-v0": 4}


@pytest.mark.parametrize(
    ("env_id", "path_id"), GOLDEN_PATHS, ids=[f"{e}:{p}" for e, p in GOLDEN_PATHS]
)
def test_the_oracle_plays_each_golden_path_to_success_meeting_every_expect(
    make_env, env_id, path_id
):
    seeds = oracle_seeds(env_id, path_id)
    envs = [make_env(env_id, obs_mode="text") for _ in range(ENVS_PER_PATH.get(env_id, 1))]
    shares = [seeds[i :: len(envs)] for i in range(len(envs))]
    with ThreadPoolExecutor(len(envs)) as pool:
        failures = pool.map(golden_failures, envs, [path_id] * len(envs), shares)
    assert [failure for share in failures for failure in share] == []


@pytest.mark.parametrize("ending", ["done()", 'send_msg_to_user("")'])
@pytest.mark.parametrize(  # the MiniWoB++ pack's own tests end its scripted tasks at once
    "env_id", [i for i in registered_ids() if not i.startswith(f"WebEval/{miniwob.PREFIX}")]
)
def test_ending_at_once_fails(make_env, env_id, ending):
    run = play(make_env(env_id, obs_mode="text"), lambda obs, info: ending, seed=0)
    assert run.terminated and not run.success
