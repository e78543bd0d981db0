"""WebEval/validation-v0: the server rejects the phone as the instruction writes it (422,
with the format it wants); the oracle fixes it and resubmits, stopping after the rejection fails."""

from __future__ import annotations

from tests.support.episodes import EpisodeRun, oracle_policy, play

ENV = "WebEval/validation-v0"


def _patients(run: EpisodeRun, email: str) -> list[dict]:
    return [p for p in run.last["semantic_state"].app["patients"] if p["email"] == email]


def test_stopping_after_the_rejection_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env, "fix-and-resubmit")
    submits = {"n": 0}

    def give_up_after_first_submit(obs, info):
        if submits["n"] == 1:
            return "done()"
        action = oracle(obs, info)
        submit = info["semantic_state"].find("button", "Register patient")
        if submit and action == f"click('{submit[0].ref}')":
            submits["n"] += 1
        return action

    run = play(env, give_up_after_first_submit, seed=6)
    email = run.last["task"].params["email"]
    assert run.terminated and not run.success
    assert _patients(run, email) == []  # nothing was saved
    phone = run.last["semantic_state"].find("textbox", "Mobile phone")[0]
    assert phone.invalid and "international format" in run.last["semantic_state"].text


def test_resubmitting_the_phone_unchanged_is_rejected_again(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env, "fix-and-resubmit")

    def never_fixes(obs, info):
        params = info["task"].params
        return oracle(obs, info).replace(repr(params["phone_fixed"]), repr(params["phone_given"]))

    run = play(env, never_fixes, seed=7)
    assert run.terminated and not run.success
    assert _patients(run, run.last["task"].params["email"]) == []
