"""WebEval/combobox-v0: a custom ARIA combobox is driven by clicks (or its search field);
the oracle passes on both golden paths, a neighbouring option fails, fill() is refused."""

from __future__ import annotations

import re

from tests.support.episodes import oracle_policy, play
from webharness.action_result import ActionErrorKind

ENV = "WebEval/combobox-v0"


def _ref(info, role, name):
    return info["semantic_state"].find(role, name)[0].ref


def test_picking_the_neighbouring_option_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env, "click-option")
    picked = {}

    def neighbour(obs, info):
        action = oracle(obs, info)
        options = [e for e in info["semantic_state"].elements if e.role == "option"]
        target = info["task"].params["assignee"]
        names = [o.name for o in options]
        if target in names and f"'{options[names.index(target)].ref}'" in action:
            i = names.index(target)
            wrong = options[i + 1] if i + 1 < len(options) else options[i - 1]
            picked["name"] = wrong.name
            return f"click('{wrong.ref}')"
        return action

    run = play(env, neighbour, seed=2)
    assert run.terminated and not run.success
    ticket = run.last["semantic_state"].app["tickets"][0]
    assert (
        ticket["assignee"] == picked["name"] != run.last["task"].params["assignee"]
    )  # saved, but the wrong agent


def test_fill_and_select_option_on_the_custom_combobox_are_unsupported(make_env):
    env = make_env(ENV, obs_mode="text")
    obs, info = env.reset(seed=4)
    target = info["task"].params["assignee"]
    ref = _ref(info, "combobox", "Assignee")
    for action in (f"fill('{ref}', '{target}')", f"select_option('{ref}', '{target}')"):
        obs, reward, terminated, truncated, info = env.step(action)
        assert info["action_result"].error is ActionErrorKind.UNSUPPORTED_CONTROL, action
        assert (
            re.search("click", obs["last_action_error"])
            or "does not take text" in obs["last_action_error"]
        )
    obs, reward, terminated, truncated, info = env.step(
        f"click('{_ref(info, 'button', 'Save changes')}')"
    )
    obs, reward, terminated, truncated, info = env.step("done()")
    assert terminated and not info["success"]
    assert info["semantic_state"].app["tickets"][0]["assignee"] in (None, "")
