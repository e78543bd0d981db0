"""WebEval/shop-v0: search, open, pick colour + size + quantity, add to cart, check out."""

from __future__ import annotations

import pytest

from tests.support.episodes import oracle_policy, play

ENV = "WebEval/shop-v0"
PATHS = ["search-button-via-cart", "enter-key-direct-checkout"]
COLOURS = ["Black", "Navy", "Olive", "Sand", "Rust"]
SIZES = ["XS", "S", "M", "L", "XL", "XXL"]


def _picking_another(env, param: str, options: list[str]):
    """The oracle, but choosing the next option after the asked one (colour or size)."""
    oracle = oracle_policy(env)

    def act(obs, info):
        action = oracle(obs, info)
        state, wanted = info["semantic_state"], info["task"].params[param]
        target = state.find("radio", wanted)
        if target and action == f"check({target[0].ref!r})":
            other = options[(options.index(wanted) + 1) % len(options)]
            return f"check({state.find('radio', other)[0].ref!r})"
        return action

    return act


@pytest.mark.parametrize(("param", "options", "seed"), [("colour", COLOURS, 1), ("size", SIZES, 2)])
def test_the_wrong_variant_fails(make_env, param, options, seed):
    env = make_env(ENV, obs_mode="text")
    run = play(env, _picking_another(env, param, options), seed)
    params = run.last["task"].params
    orders = run.last["semantic_state"].app["orders"]
    assert run.terminated and not run.success
    assert (
        len(orders) == 1 and orders[0]["product"] == params["product"]
    )  # the order went through...
    assert orders[0][param] != params[param]  # ...in the wrong variant


def test_the_wrong_quantity_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env)

    def one_more(obs, info):
        action = oracle(obs, info)
        qty = str(info["task"].params["qty"])
        return (
            action.replace(f", {qty!r})", f", {str(int(qty) + 1)!r})")
            if action.startswith("fill(")
            else action
        )

    run = play(env, one_more, seed=3)
    params = run.last["task"].params
    orders = run.last["semantic_state"].app["orders"]
    assert run.terminated and not run.success
    assert [(o["colour"], o["size"], o["quantity"]) for o in orders] == [
        (params["colour"], params["size"], params["qty"] + 1)
    ]
