"""WebEval/search-v0: the oracle filters by Search button and by Enter; one filter off fails."""

from __future__ import annotations

import pytest

from tests.support.episodes import distinct, instance_params, oracle_policy, play

TASK = "search"
ENV = f"WebEval/{TASK}-v0"


def params(seed: int) -> dict:
    return instance_params(TASK, seed)


DECOY = {"word": "word2", "status": "status2", "category": "category2"}  # a decoy product's value


def one_filter_off(env, key: str):
    """The oracle's search with one filter (q, status or category) set to a decoy's value."""
    oracle = oracle_policy(env, "search-button")
    wrong = DECOY[key]

    def act(obs, info):
        p = info["task"].params
        action = oracle(obs, info)
        if action.startswith(("fill(", "select_option(")) and action.endswith(f"'{p[key]}')"):
            action = action[: -len(f"'{p[key]}')")] + f"'{p[wrong]}')"
        return action

    return act


@pytest.mark.parametrize("key", ["word", "status", "category"])
def test_one_filter_off_fails(make_env, key):
    env = make_env(ENV, obs_mode="text")
    for seed in (0, 1):
        p = params(seed)
        run = play(env, one_filter_off(env, key), seed)
        ran = {**p, key: p[DECOY[key]]}
        assert run.terminated and not run.success, (key, seed, run.actions)
        # The (wrong) query did run, and found the decoy rather than nothing.
        assert (
            f"match “{ran['word']}” · {ran['status']} · {ran['category']}"
            in run.last["semantic_state"].text
        )
        assert "No products match" not in run.last["semantic_state"].text


def test_setting_the_filters_without_running_the_search_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env, "search-button")

    def skip_search(obs, info):
        action = oracle(obs, info)
        search = info["semantic_state"].find("button", "Search")
        return "done()" if search and action == f"click('{search[0].ref}')" else action

    run = play(env, skip_search, seed=2)
    p = run.last["task"].params
    state = run.last["semantic_state"]
    assert state.find("searchbox", "Search products")[0].value == p["word"]
    assert "Showing all 18 products" in state.text and "press Search" in state.text
    assert run.terminated and not run.success


def test_same_seed_gives_the_same_catalogue(make_env):
    env = make_env(ENV, obs_mode="text")
    texts = [env.reset(seed=s)[1]["semantic_state"].text for s in (6, 6, 7)]
    assert texts[0] == texts[1] != texts[2]


def test_there_are_over_a_thousand_distinct_instances():
    instances = ((p["word"], p["status"], p["category"]) for p in map(params, range(5000)))
    assert distinct(instances, enough=1000) >= 1000
