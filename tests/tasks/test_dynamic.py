"""WebEval/dynamic-v0: the inbox re-renders every row on re-sort; refs from before go stale."""

from __future__ import annotations

from tests.support.episodes import oracle_policy, play

ENV = "WebEval/dynamic-v0"


def _ref(info, role: str, name: str) -> str:
    (element,) = info["semantic_state"].find(role, name)
    return element.ref


def _archived(info) -> list[str]:
    return [
        m["subject"] for m in info["semantic_state"].app["messages"] if m["folder"] == "archive"
    ]


def test_a_ref_from_before_the_rerender_is_stale_and_the_task_is_not_done(make_env):
    env = make_env(ENV, obs_mode="text")
    obs, info = env.reset(seed=4)
    params = info["task"].params
    old_archive = _ref(info, "button", f"Archive: {params['subject']}")
    sort_ref = _ref(info, "combobox", "Sort by")
    obs, _, _, _, info = env.step(f"select_option({sort_ref!r}, {params['sort_label']!r})")
    assert info["action_result"].ok
    assert (
        _ref(info, "button", f"Archive: {params['subject']}") != old_archive
    )  # the row was rebuilt

    obs, _, _, _, info = env.step(f"click({old_archive!r})")
    assert info["action_result"].error.value == "stale_ref"
    assert obs["last_action_error"]
    assert _archived(info) == []

    _, reward, terminated, _, info = env.step("done()")
    assert terminated and reward == 0.0 and not info["success"]


def test_archiving_the_other_message_from_the_same_sender_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env, "row-button")

    def archive_decoy(obs, info):
        params = info["task"].params
        action = oracle(obs, info)
        target = info["semantic_state"].find("button", f"Archive: {params['subject']}")
        if target and action == f"click({target[0].ref!r})":
            return f"click({_ref(info, 'button', 'Archive: ' + params['decoy_subject'])!r})"
        return action

    run = play(env, archive_decoy, seed=2)
    assert run.terminated and not run.success
    assert _archived(run.last) == [run.last["task"].params["decoy_subject"]]


def test_archiving_without_re_sorting_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env, "row-button")

    def skip_sort(obs, info):
        action = oracle(obs, info)
        return oracle(obs, info) if action.startswith("select_option") else action

    run = play(env, skip_sort, seed=3)
    assert run.terminated and not run.success
    assert _archived(run.last) == [run.last["task"].params["subject"]]
