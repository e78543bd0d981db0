"""WebEval/form-v0: oracle passes on both golden paths, near misses fail."""

from __future__ import annotations

from tests.support.episodes import oracle_policy, play

ENV = "WebEval/form-v0"


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
