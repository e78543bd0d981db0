"""A browser killed, a page crashed, a page hung: the step returns within its bound, the
episode ends as not executable, the next reset works, and no Chromium is left behind."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from tests.reliability.conftest import click_action, hostile_env, hostile_spec, our_browser_pids
from webharness.action_result import ActionErrorKind
from webharness.browser.host import BrowserHost
from webharness.envs import WebEvalEnv
from webharness.errors import BrowserError
from webharness.testing.processes import wait_for_exit

pytestmark = pytest.mark.own_browser  # counts browser processes

SLACK_S = 1.0  # what the issue allows on top of the env's own bound


@pytest.fixture
def env(browser):
    before = our_browser_pids()
    env = hostile_env()
    yield env
    env.close()
    assert our_browser_pids() - before == set(), "a Chromium outlived env.close()"


def step_timed(env, action):
    started = time.monotonic()
    out = env.step(action)
    return time.monotonic() - started, out


def assert_not_executable(info, truncated):
    assert truncated
    assert info["action_result"].error is ActionErrorKind.BROWSER_ERROR
    end = info["episode_end"]
    assert end.not_executable and end.ended_by == "runtime_error" and end.error


def assert_recovers(env):
    obs, info = env.reset(seed=1)
    assert info["semantic_state"].title == "Hostile"
    _, _, _, _, info = env.step("noop()")
    assert info["action_result"].ok


def assert_hang_caught_in_bound(env, elapsed, info, truncated):
    assert_not_executable(info, truncated)
    assert "hung page" in info["episode_end"].error
    assert elapsed <= env._step_timeout_s() + SLACK_S
    assert_recovers(env)


def test_a_killed_browser_ends_the_step_and_the_next_reset_starts_a_fresh_one(env):
    _, info = env.reset(seed=0)
    old_browser = env.runtime.host._browser_pid
    os.kill(old_browser, signal.SIGKILL)
    elapsed, (_, _, _, truncated, info) = step_timed(env, click_action(info, "Open window"))
    assert_not_executable(info, truncated)
    assert elapsed <= env._step_timeout_s() + SLACK_S
    assert_recovers(env)
    assert env.runtime.host._browser_pid != old_browser


def _crash_page(env) -> None:
    """Page.crash over CDP: its reply never comes (the renderer is gone), so don't wait."""
    session = env.unwrapped.episode.session

    async def crash():
        cdp = await session.context.new_cdp_session(session.page)
        async with session.page.expect_event("crash", timeout=30_000):  # listening before the crash
            sent = asyncio.ensure_future(cdp.send("Page.crash"))
            sent.add_done_callback(lambda f: f.cancelled() or f.exception())

    env.runtime.run(crash(), 40)
    assert session.crashed, "the page did not report its crash"


def test_a_crashed_page_ends_the_step_and_the_next_reset_works(env):
    _, info = env.reset(seed=0)
    _crash_page(env)
    elapsed, (_, _, _, truncated, info) = step_timed(env, click_action(info, "Open window"))
    assert_not_executable(info, truncated)
    assert "crashed" in info["episode_end"].error
    assert elapsed <= env._step_timeout_s() + SLACK_S
    assert_recovers(env)


def test_a_page_hung_in_its_click_handler_returns_within_the_bound_and_the_next_reset_works(env):
    _, info = env.reset(seed=0)
    elapsed, (_, _, _, truncated, info) = step_timed(env, click_action(info, "Hang forever"))
    assert_hang_caught_in_bound(env, elapsed, info, truncated)


def test_a_page_that_hangs_after_its_click_is_caught_by_the_next_page_read(env):
    """The loop starts in a timer after the handler returns. The click's own observation
    may run before that timer (DevTools work outranks timers in the renderer), so the hang
    is caught by the click's step or by a later step that reads the page; each one bounded."""
    _, info = env.reset(seed=0)
    elapsed, (_, _, _, truncated, info) = step_timed(env, click_action(info, "Hang later"))
    for _ in range(100):  # a few milliseconds of steps: the timer is due long before
        if truncated:
            break
        assert info["action_result"].ok and elapsed <= env._step_timeout_s() + SLACK_S
        elapsed, (_, _, _, truncated, info) = step_timed(env, "noop()")
    assert_hang_caught_in_bound(env, elapsed, info, truncated)


def test_a_start_page_slower_than_the_action_bound_names_the_bound_to_raise(browser):
    before = our_browser_pids()
    spec = hostile_spec(start_page="/slow_start.html?ms=2000")
    env = WebEvalEnv(spec, obs_mode="text", action_timeout_ms=300, settle_cap_ms=300)
    try:
        with pytest.raises(BrowserError) as raised:
            env.reset(seed=0)
        assert "slow_start.html?ms=2000 was not loaded (DOMContentLoaded) within " in str(
            raised.value
        )
        assert "action_timeout_ms=300: " in str(raised.value)
        assert "may need a larger action_timeout_ms" in str(raised.value)
    finally:
        env.close()
    assert our_browser_pids() - before == set()
    slow_but_in_bound = WebEvalEnv(spec, obs_mode="text", action_timeout_ms=30_000)
    try:
        assert slow_but_in_bound.reset(seed=0)[1]["semantic_state"].title == "Slow start"
    finally:
        slow_but_in_bound.close()


def test_closing_an_env_whose_page_is_hung_is_bounded_and_leaves_no_browser(browser):
    before = our_browser_pids()
    env = hostile_env()
    _, info = env.reset(seed=0)
    session = env.unwrapped.episode.session
    # Hang the renderer without going through step (which would restart the browser).
    env.runtime.host.submit(session.page.evaluate("() => { for (;;) {} }"))
    with pytest.raises(TimeoutError):
        env.runtime.run(session.page.evaluate("1"), 1.0)
    started = time.monotonic()
    env.close()
    assert time.monotonic() - started <= 2 * 10.0 + SLACK_S  # graceful try, then the kill
    assert our_browser_pids() - before == set()


def test_a_host_whose_graceful_close_hangs_kills_its_browser(browser, monkeypatch):
    """The bound holds even when Playwright itself never answers (a stopped browser)."""
    before = our_browser_pids()
    host = BrowserHost()
    host.run(host.browser(), 120)
    pid = host._browser_pid
    os.kill(pid, signal.SIGSTOP)  # the browser stops answering anything
    try:
        started = time.monotonic()
        host.close(timeout=2.0)
        assert time.monotonic() - started <= 2 * 2.0 + SLACK_S
    finally:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
    wait_for_exit(our_browser_pids() - before, 30)  # children notice their browser is gone
    assert our_browser_pids() - before == set()
