"""WebEval/clarify-v0: the delivery phone is withheld from the instruction; the agent must
ask the simulated user for it. Invented numbers, and right numbers never asked for, fail."""

from __future__ import annotations

from tests.support.episodes import EpisodeRun, oracle_policy, play

ENV = "WebEval/clarify-v0"
INVENTED = "+44 7700 900000"


def _without_asking(env, phone_for=lambda params: params["phone"]):
    """The oracle, minus its ask_user step, typing ``phone_for(params)`` as the phone."""
    oracle = oracle_policy(env, "ask-then-fill")

    def act(obs, info):
        action = oracle(obs, info)
        if action.startswith("ask_user("):
            action = oracle(obs, info)  # skip the question: go straight on
        params = info["task"].params
        return action.replace(repr(params["phone"]), repr(phone_for(params)))

    return act


def _orders(run: EpisodeRun) -> list[dict]:
    return run.last["semantic_state"].app["orders"]


def test_the_user_answers_a_question_about_the_phone(make_env):
    env = make_env(ENV, obs_mode="text")
    obs, info = env.reset(seed=3)
    assert info["task"].params["phone"] not in obs["goal"]  # withheld from the instruction
    obs, *_ = env.step('ask_user("Which mobile number should the courier call?")')
    assert info["task"].params["phone"] in obs["user_messages"][-1]
    obs, *_ = env.step('ask_user("Should I pick the cheapest slot?")')
    assert (
        info["task"].params["phone"] not in obs["user_messages"][-1]
    )  # an unrelated question gets no number


def test_an_invented_phone_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    run = play(env, _without_asking(env, lambda params: INVENTED), seed=2)
    assert run.terminated and not run.success
    assert [o["phone"] for o in _orders(run)] == [
        INVENTED.replace(" ", "")
    ]  # the order went out with a made-up number


def test_the_right_phone_without_asking_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    run = play(env, _without_asking(env), seed=2)
    assert run.terminated and not run.success  # asked_user is part of success
    assert [o["phone"] for o in _orders(run)] == [run.last["task"].params["phone_digits"]]
