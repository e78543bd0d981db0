"""One Chromium per process: envs share it, the last one out closes it, a crash is survived."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import webharness
from webharness.browser.host import DRIVER_NODE_OPTIONS
from webharness.browser.profiles import PLAYWRIGHT_PROFILE_PREFIX
from webharness.browser.runtime import BrowserRuntime
from webharness.browser.shared import users_of
from webharness.testing.processes import chromium_pids, cmdline, descendants, wait_for_exit

pytestmark = pytest.mark.own_browser  # counts browser processes

FORM = "WebEval/form-v0"


def browser_pid(env: gym.Env) -> int:
    return env.unwrapped.runtime.host._browser_pid


def test_no_chromium_is_left_after_close(browser):
    before = chromium_pids()
    env = gym.make("WebEval/form-v0", obs_mode="text")
    env.reset(seed=0)
    assert chromium_pids() - before, "the env should have launched a browser"
    env.close()
    env.close()  # idempotent
    assert chromium_pids() - before == set()


def test_the_browser_is_not_launched_before_reset():
    before = chromium_pids()
    env = gym.make("WebEval/form-v0")
    assert chromium_pids() - before == set()
    env.close()


def test_envs_in_one_process_share_one_browser_and_the_last_one_closes_it(browser):
    before = chromium_pids()
    first, second = gym.make(FORM, obs_mode="text"), gym.make(FORM, obs_mode="text")
    first.reset(seed=0)
    second.reset(seed=1)
    assert first.unwrapped.runtime.host is second.unwrapped.runtime.host
    assert users_of(first.unwrapped.runtime.host) == 2
    first.close()
    _, _, _, _, info = second.step("noop()")
    assert info["action_result"].ok, "closing one env must not disturb the other"
    assert chromium_pids() - before, "the browser stays while an env uses it"
    second.close()
    assert wait_for_exit(chromium_pids() - before, 10)


def test_keep_browser_holds_the_browser_between_envs_made_one_after_another(browser):
    before = chromium_pids()
    with webharness.keep_browser():
        pids = []
        for seed in (0, 1):
            env = gym.make(FORM, obs_mode="text")
            env.reset(seed=seed)
            pids.append(browser_pid(env))
            env.close()
        assert pids[0] == pids[1], "the second env should reuse the kept browser"
    assert wait_for_exit(chromium_pids() - before, 10), "keep_browser left Chromium behind"


def test_a_crash_ends_both_episodes_once_and_each_env_recovers_on_one_fresh_browser(browser):
    first, second = gym.make(FORM, obs_mode="text"), gym.make(FORM, obs_mode="text")
    try:
        first.reset(seed=0)
        second.reset(seed=1)
        old = browser_pid(first)
        os.kill(old, signal.SIGKILL)
        for env in (first, second):
            _, _, _, truncated, info = env.step("noop()")
            assert truncated and info["episode_end"].not_executable
        first.reset(seed=2)
        second.reset(seed=3)  # must not kill the browser the first env has just started
        _, _, _, _, info = first.step("noop()")
        assert info["action_result"].ok
        assert browser_pid(first) == browser_pid(second) != old
    finally:
        first.close()
        second.close()


def _node_options_of_driver() -> list[str]:
    """NODE_OPTIONS of each Playwright driver (a Node.js child) this process runs."""
    found = []
    for pid, name in descendants().items():
        if name.startswith("node"):  # "node-MainThread" on recent Node.js
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
            found.append(environ.get(b"NODE_OPTIONS", b"").decode())
    return found


@pytest.mark.parametrize("user_options", [None, "--stack-trace-limit=20"])
def test_the_driver_gets_a_small_young_generation_and_the_environment_is_put_back(
    browser, monkeypatch, user_options
):
    if user_options is None:
        monkeypatch.delenv("NODE_OPTIONS", raising=False)
    else:
        monkeypatch.setenv("NODE_OPTIONS", user_options)
    env = gym.make(FORM, obs_mode="text")
    try:
        env.reset(seed=0)
        expected = f"{DRIVER_NODE_OPTIONS} {user_options or ''}".strip()
        assert _node_options_of_driver() == [expected]  # the user's flags last: theirs win
        assert os.environ.get("NODE_OPTIONS") == user_options
    finally:
        env.close()


def test_a_large_response_body_passes_through_the_driver_under_its_heap_cap(browser):
    """The cap in DRIVER_NODE_OPTIONS bounds the driver's heap; a 12 MB body, in and out of
    the driver as base64 strings several times over, must still reach the page. With a
    32 MB cap the driver dies at 10, 12 and 20 MB (measured; 8 MB passed 2 times of 3):
    12 MB tells the two caps apart in half the 20 MB body's time."""
    body = os.urandom(12 * 2**20)
    runtime = BrowserRuntime((320, 240))

    async def fetch_big_body() -> int:
        context = await (await runtime.host.browser()).new_context()
        try:
            await context.route(
                "**/big.bin",
                lambda route: route.fulfill(body=body, content_type="application/octet-stream"),
            )
            await context.route(
                "**/", lambda route: route.fulfill(body="<p>big</p>", content_type="text/html")
            )
            page = await context.new_page()
            await page.goto("http://big.test/")
            return await page.evaluate(
                "async () => (await (await fetch('/big.bin')).arrayBuffer()).byteLength"
            )
        finally:
            await context.close()

    try:
        assert runtime.run(fetch_big_body(), 120) == len(body)
        assert all("--max-old-space-size=256" in o for o in _node_options_of_driver())
    finally:
        runtime.close()


def test_our_launch_flags_keep_playwrights_feature_lists(browser):
    """Chromium keeps only the last --disable-features: ours must not replace Playwright's."""
    env = gym.make(FORM, obs_mode="text")
    try:
        env.reset(seed=0)
        renderers = [pid for pid in chromium_pids() if b"--type=renderer" in cmdline(pid)]
        assert renderers
        for pid in renderers:
            # Chromium rewrites a child's argv into one string: split on spaces and NULs.
            features = [
                a for a in re.split(rb"[\0 ]", cmdline(pid)) if a.startswith(b"--disable-features=")
            ]
            assert features and b"HttpsUpgrades" in features[-1], features  # one of Playwright's
    finally:
        env.close()


_KILL_THE_DRIVER = """
import sys
from webharness.browser.host import BrowserHost
from webharness.testing.processes import descendants, wait_for_exit

host = BrowserHost()
host.run(host.browser())
print(host._profile)
drivers = {pid for pid, name in descendants().items() if name.startswith("node")}
assert len(drivers) == 1, drivers
import os, signal
os.kill(min(drivers), signal.SIGKILL)
assert wait_for_exit(drivers, 10), "the driver did not exit"
host.close()
print("closed")
"""


def test_a_driver_killed_under_the_harness_leaves_no_asyncio_report_and_no_profile(browser):
    """Ctrl-C in a terminal kills Playwright's driver too; the harness reports the
    interruption in one line, and asyncio must not add 'Future exception was never
    retrieved' for the transport's error (every Playwright call already raises it). The
    browser's profile folder, which the dead driver can no longer remove, is removed."""
    done = subprocess.run(
        [sys.executable, "-c", _KILL_THE_DRIVER],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    printed = done.stdout.split()
    assert done.returncode == 0 and printed[1:] == ["closed"], done.stderr
    profile = printed[0]
    assert Path(profile).name.startswith(PLAYWRIGHT_PROFILE_PREFIX)
    assert not Path(profile).exists(), "the killed driver's browser left its profile folder"
    assert "never retrieved" not in done.stderr and "Traceback" not in done.stderr, done.stderr
