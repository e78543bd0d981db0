"""Pages that fight the harness: a page that navigates itself every 10 ms never makes a
step a browser error or the episode not executable (its steps are observed when the page
holds still, or end as ``page_unsettled``, the page's doing); a page that replaces the
builtins is observed, acted on and judged as any other."""

from __future__ import annotations

import pytest

from tests.support.sites import site_spec
from webharness.action_result import ActionErrorKind
from webharness.envs import WebEvalEnv


@pytest.fixture(scope="module")
def restless_env(browser):
    spec = site_spec("restless_site", max_steps=100)
    env = WebEvalEnv(spec, obs_mode="text", action_timeout_ms=2_000, settle_cap_ms=1_500)
    yield env
    env.close()


@pytest.mark.parametrize(
    "action", ["scroll(0, 100)", "noop()", "wait(100)", "click('e2')", "press('e2', 'Enter')"]
)
def test_a_page_that_keeps_navigating_is_never_a_browser_error(restless_env, action):
    _, info = restless_env.reset(seed=0)
    seen = set()
    for _ in range(6):
        obs, _, terminated, truncated, info = restless_env.step(action)
        error = info["action_result"].error
        seen.add(error)
        assert error is not ActionErrorKind.BROWSER_ERROR, info["action_result"].message
        assert not (terminated or truncated), info.get("episode_end")
        assert 'heading "Restless"' in obs["axtree"]  # an observation of the page, always
    assert seen <= {None, ActionErrorKind.PAGE_UNSETTLED, ActionErrorKind.STALE_REF}


def test_a_page_that_replaces_the_builtins_is_observed_and_acted_on(browser):
    """The page breaks Array, Object, JSON, Map, WeakMap, Set, String, DOM prototypes,
    Symbol.for, Promise and Function.prototype.apply before its first line of content: the
    agent, in its own world, still reads the page, fills, clicks and judges the criteria."""
    spec = site_spec("fighting_site", {"kind": "text", "text": "Status: saved Ada"})
    env = WebEvalEnv(spec, obs_mode="both")
    try:
        obs, info = env.reset(seed=0)
        assert 'textbox "Name"' in obs["axtree"] and 'button "Save"' in obs["axtree"]
        state = info["semantic_state"]
        name, save = state.find("textbox", "Name")[0], state.find("button", "Save")[0]
        info = env.step(f"fill({name.ref!r}, 'Ada')")[4]
        assert info["action_result"].ok, info["action_result"].message
        obs, reward, terminated, _, info = env.step(f"click({save.ref!r})")
        assert info["action_result"].ok and info["action_result"].state_changed
        assert "Status: saved Ada" in obs["axtree"] and info["success"]
        assert obs["screenshot"].shape == (720, 1280, 3)
        _, reward, terminated, _, info = env.step("done()")
        assert terminated and reward == 1.0 and not info["episode_end"].not_executable
    finally:
        env.close()


def test_js_criteria_are_judged_on_a_page_that_replaced_the_builtins(browser):
    spec = site_spec("fighting_site", {"kind": "js", "expression": "document.title === 'Fighting'"})
    env = WebEvalEnv(spec, obs_mode="text")
    try:
        _, info = env.reset(seed=0)
        assert info["success"] and info.get("criteria_error") is None
    finally:
        env.close()


@pytest.mark.parametrize(
    ("expression", "success"), [("window.saved === 3", True), ("window.saved === 4", False)]
)
def test_js_criteria_are_judged_on_a_page_that_swallows_the_hooks_answer(
    browser, expression, success
):
    """The criteria are asked of the page's world within the observation's own call; on a
    page that stops the answer, they are asked over CDP instead, with the same verdict."""
    spec = site_spec("deaf_site", {"kind": "js", "expression": expression})
    env = WebEvalEnv(spec, obs_mode="text")
    try:
        _, info = env.reset(seed=0)
        assert info["success"] is success and info.get("criteria_error") is None
    finally:
        env.close()
