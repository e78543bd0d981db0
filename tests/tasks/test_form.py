"""WebEval/form-v0: oracle passes on both golden paths, near misses fail."""

from __future__ import annotations

import pytest

from tests.conftest import oracle_policy, oracle_seeds, play

ENV = "WebEval/form-v0"


@pytest.mark.parametrize("path", ["save-button", "enter-key"])
def test_oracle_succeeds_on_both_golden_paths(make_env, path):
    env = make_env(ENV, obs_mode="text")
    for seed in oracle_seeds(ENV, path):
        run = play(env, oracle_policy(env, path), seed)
        assert run.success, (path, seed, run.actions)


def test_ending_at_once_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    run = play(env, lambda obs, info: "done()", seed=0)
    assert run.terminated and not run.success


def test_a_wrong_value_fails_the_criteria(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env)

    def typo_in_name(obs, info):
        action = oracle(obs, info)
        name = info["task"].params["name"]
        return action.replace(name, name + "x")

    run = play(env, typo_in_name, seed=1)
    assert run.terminated and not run.success
    rows = run.last["semantic_state"].app["contacts"]
    assert any(r["name"].endswith("x") for r in rows)  # the record was saved, with the typo
