"""A page, or an agent's goto, reaches nothing the task does not allow: other localhost
ports (a real server here), file://, chrome://, data:; new windows, downloads and
permission prompts are refused. Every attempt is recorded in ``blocked_requests``."""

from __future__ import annotations

import time

import pytest

from tests.reliability.conftest import click_action, hostile_env
from webharness.action_result import ActionErrorKind


@pytest.fixture(scope="module")
def env(browser, local_server):
    env = hostile_env(local_server.port)
    yield env
    env.close()


@pytest.fixture
def page(env, local_server):
    local_server.hits.clear()
    _, info = env.reset(seed=0)
    return env, info


def click(env, info, name):
    return env.step(click_action(info, name))[4]


def blocked_soon(env, info, wanted, steps=10):
    """The blocked list once it holds ``wanted`` (some events, such as a new window, land
    after the step that caused them): up to ``steps`` short waits."""
    for _ in range(steps):
        if any(wanted in entry for entry in info["semantic_state"].blocked_requests):
            return info["semantic_state"].blocked_requests
        info = env.step("wait(300)")[4]
    return info["semantic_state"].blocked_requests


def page_status(info):
    return info["semantic_state"].text.split("Status: ", 1)[1].split(" Name", 1)[0]


@pytest.mark.parametrize(
    "button, path",
    [
        ("Fetch local server", "/secret"),
        ("Open local server", "/secret"),
        ("Frame local server", "/secret"),
        ("Image local server", "/pixel"),
        ("Socket local server", "/ws"),
    ],
)
def test_the_page_cannot_reach_another_localhost_port(page, local_server, button, path):
    env, info = page
    info = click(env, info, button)
    assert f"127.0.0.1:{local_server.port}{path}" in " ".join(blocked_soon(env, info, path))
    env.step("wait(300)")
    assert local_server.hits == [], "the page reached the local server"


def test_a_fetch_to_the_local_server_is_refused_to_the_page(page, local_server):
    env, info = page
    info = click(env, info, "Fetch local server")
    assert page_status(info) == "fetch refused"


def test_an_allowed_origin_is_reached(browser, local_server):
    """The same server, allowed by the task, is reached. (By navigation: Chromium's own
    private-network rules still refuse a plain-http page's fetch or iframe to loopback.)"""
    env = hostile_env(local_server.port, allowed=(local_server.origin,))
    try:
        local_server.hits.clear()
        _, info = env.reset(seed=0)
        info = click(env, info, "Open local server")
        assert info["semantic_state"].url == f"{local_server.origin}/secret"
        assert local_server.hits == ["/secret"] and info["semantic_state"].blocked_requests == []
    finally:
        env.close()


@pytest.mark.parametrize(
    "button, url",
    [
        ("Open file", "file:///etc/passwd"),
        ("Frame file", "file:///etc/passwd"),
        ("Open chrome page", "chrome://version/"),
        ("Open data page", "data:text/html,"),
    ],
)
def test_the_page_cannot_open_local_files_browser_pages_or_data_urls(page, button, url):
    env, info = page
    info = click(env, info, button)
    assert info["semantic_state"].url.startswith("http://webeval.test/index.html")
    assert info["semantic_state"].title == "Hostile"
    assert any(entry.startswith(url) for entry in blocked_soon(env, info, url))


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "chrome://version",
        "chrome://crash",
        "data:text/html,hi",
        "javascript:document.title='x'",
        "about:blank",
        "view-source:http://webeval.test/",
        "http://127.0.0.1:{port}/secret",
        "http://localhost:{port}/secret",
        "http://webeval.test.evil.example/",
    ],
)
def test_an_agent_goto_outside_the_task_is_blocked_and_recorded(page, local_server, url):
    env, info = page
    url = url.format(port=local_server.port)
    _, _, terminated, truncated, info = env.step(f"goto({url!r})")
    assert info["action_result"].error is ActionErrorKind.NAVIGATION_BLOCKED
    assert info["semantic_state"].url.startswith("http://webeval.test/") and not (
        terminated or truncated
    )
    assert info["semantic_state"].blocked_requests, "the attempt should be recorded"
    assert local_server.hits == []


@pytest.mark.parametrize("button", ["Open window", "Open in new tab"])
def test_new_windows_are_closed_and_recorded(page, button):
    env, info = page
    info = click(env, info, button)
    assert "http://webeval.test/page2.html [new window]" in blocked_soon(env, info, "new window")
    context = env.unwrapped.episode.session.context
    deadline = time.monotonic() + 10
    while len(context.pages) > 1 and time.monotonic() < deadline:
        env.step("wait(200)")
    assert context.pages == [env.unwrapped.episode.session.page]


def test_downloads_are_refused_and_recorded(page):
    """Chromium fetches an <a download> outside the context's request interception (a real
    DNS lookup, slow on some machines), so the page refuses it itself: recorded at once, and
    the page is settled, not waiting for a document that will never come."""
    env, info = page
    session = env.unwrapped.episode.session
    settled = []
    real_settle, real_settle_and_snapshot = session.settle, session.settle_and_snapshot

    async def noting_settle(*args, **kwargs):
        settled.append(await real_settle(*args, **kwargs))
        return settled[-1]

    async def noting_settle_and_snapshot(*args, **kwargs):
        result = await real_settle_and_snapshot(*args, **kwargs)
        settled.append(result[0])
        return result

    session.settle, session.settle_and_snapshot = noting_settle, noting_settle_and_snapshot
    info = click(env, info, "Download file")
    assert "http://webeval.test/download.bin [download]" in info["semantic_state"].blocked_requests
    assert settled and all(settled), "the click's settle ran to its cap, waiting for a navigation"


@pytest.mark.parametrize(
    "button, refusals, recorded",
    [
        ("Locate me", {"geo denied 1"}, "geolocation [permission]"),
        # The full Chromium answers "denied"; the headless shell leaves it at "default" (not
        # granted, no prompt). Either way the page gets no permission.
        ("Notify me", {"notify denied", "notify default"}, "notifications [permission]"),
    ],
)
def test_permission_prompts_are_denied_and_recorded(page, button, refusals, recorded):
    env, info = page
    info = click(env, info, button)
    if (
        page_status(info) not in refusals
    ):  # the answer comes back asynchronously: let the page answer
        info = env.step("wait(3000)")[4]
    assert page_status(info) in refusals
    assert recorded in info["semantic_state"].blocked_requests


def test_a_page_spamming_blocked_requests_keeps_a_bounded_record(page):
    env, info = page
    spam = "for (let i = 0; i < 1000; i++) fetch('http://127.0.0.1:9/x' + i).catch(() => {})"
    env.unwrapped.runtime.run(env.unwrapped.episode.session.page.evaluate(spam), 30)
    info = env.step("wait(2000)")[4]
    assert 0 < len(info["semantic_state"].blocked_requests) <= 200
