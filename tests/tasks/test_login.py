"""WebEval/login-v0: sign in by email + password or by phone + texted code; wrong secrets fail."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.episodes import oracle_policy, play

ENV = "WebEval/login-v0"


def _replacing(env, old_key: str, new_value: Callable[[str], str]) -> Callable:
    """The oracle, but typing ``new_value`` wherever it would type the param ``old_key``."""
    oracle = oracle_policy(env)

    def act(obs, info):
        action = oracle(obs, info)
        old = str(info["task"].params[old_key])
        return (
            action.replace(repr(old), repr(new_value(old)))
            if action.startswith("fill(")
            else action
        )

    return act


def test_a_wrong_password_fails_and_the_page_shows_an_error(make_env):
    env = make_env(ENV, obs_mode="text")
    run = play(
        env, _replacing(env, "password", lambda pw: pw[:-1] + str((int(pw[-1]) + 1) % 10)), seed=3
    )
    state = run.last["semantic_state"]
    assert run.terminated and not run.success
    assert state.app["sessions"] == []
    assert any("Incorrect email or password" in alert for alert in state.alerts)
    assert [h.text for h in state.headings if h.level == 1] == ["Sign in to Ledgerly"]


def test_a_wrong_one_time_code_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env, "phone-code")

    def wrong_code(obs, info):
        action = oracle(obs, info)
        code = str(info["task"].params["otp"])
        return action.replace(repr(code), repr(str((int(code) + 1) % 1_000_000).zfill(6)))

    run = play(env, wrong_code, seed=5)
    state = run.last["semantic_state"]
    assert run.terminated and not run.success
    assert state.app["sessions"] == [] and len(state.app["otp_requests"]) == 1
    assert any("code isn't right" in alert for alert in state.alerts)


def _step(env, info, action: str, role: str, name: str, *args):
    """Act on the element with this role and name in the current state."""
    (element,) = info["semantic_state"].find(role, name)
    *_, info = env.step(f"{action}({', '.join(repr(a) for a in (element.ref, *args))})")
    assert info["action_result"].ok, info["action_result"]
    return info


def test_an_unknown_phone_number_gets_no_code(make_env):
    env = make_env(ENV, obs_mode="text")
    _, info = env.reset(seed=6)
    wrong_phone = info["task"].params["phone_display"].replace(" 555 01", " 555 09")
    info = _step(env, info, "click", "tab", "Text message code")
    info = _step(env, info, "fill", "textbox", "Phone number", wrong_phone)
    info = _step(env, info, "click", "button", "Send code")
    _, reward, terminated, _, info = env.step("done()")
    state = info["semantic_state"]
    assert terminated and reward == 0.0 and not info["success"]
    assert state.app["otp_requests"] == [] and state.app["sessions"] == []
    assert any("No Ledgerly account uses this phone number" in alert for alert in state.alerts)
    assert not state.find("textbox", "One-time code")
