"""Containment holds for an agent that drives the browser itself, over CDP: each command that
would leave the episode is refused with a CDP error naming the method, its navigations and
its page's requests to another port of this machine are blocked, and the second local
server (which logs every request) receives nothing."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright
from websockets.asyncio.client import ClientConnection, connect

from tests.reliability.conftest import LocalServer, hostile_env
from webharness.cdp.door import attach

_IDS = itertools.count(1)


@pytest.fixture(scope="module")
def env(browser: None, local_server: LocalServer) -> Iterator[gym.Env]:
    env = hostile_env(local_server.port, cdp=True)
    yield env
    env.close()


async def call(
    socket: ClientConnection, method: str, params: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """Send one command and wait for its answer (events on the way are skipped)."""
    uid = next(_IDS)
    await socket.send(json.dumps({"id": uid, "method": method, "params": params or {}, **extra}))
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 30))
        if message.get("id") == uid:
            return dict(message)


async def page_session(socket: ClientConnection) -> tuple[str, list[dict[str, Any]]]:
    """Attach to the episode's page: its session, and every target the agent is shown."""
    targets = (await call(socket, "Target.getTargets"))["result"]["targetInfos"]
    page = next(t for t in targets if t["type"] == "page")
    attached = await call(
        socket, "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}
    )
    return attached["result"]["sessionId"], targets


REFUSED_AT_ROOT = [
    ("Target.createBrowserContext", {}),
    ("Target.disposeBrowserContext", {"browserContextId": "X"}),
    ("Target.createTarget", {"url": "about:blank"}),
    ("Target.attachToTarget", {"targetId": "NOT-OURS", "flatten": True}),
    ("Target.closeTarget", {"targetId": "NOT-OURS"}),
    ("Browser.close", {}),
    ("Browser.crash", {}),
    ("Browser.grantPermissions", {"permissions": ["geolocation"]}),
    (
        "Browser.setDownloadBehavior",
        {"behavior": "allow", "downloadPath": "/tmp", "browserContextId": "{ctx}"},
    ),
    ("Target.exposeDevToolsProtocol", {"targetId": "x"}),
    ("Storage.getCookies", {"browserContextId": "ANOTHER"}),
]
REFUSED_ON_THE_PAGE = [
    ("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}),
    ("Network.setRequestInterception", {"patterns": [{"urlPattern": "*"}]}),
    ("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": "/tmp"}),
    ("Page.navigate", {"url": "http://127.0.0.1:{port}/secret"}),
    ("Page.crash", {}),
    (
        "Emulation.setDeviceMetricsOverride",
        {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False},
    ),
]


def test_each_escaping_command_is_refused_naming_it(
    env: gym.Env, local_server: LocalServer
) -> None:
    env.reset(seed=0)
    local_server.hits.clear()

    async def main() -> dict[str, dict[str, Any]]:
        answers = {}
        async with attach(env) as url, connect(url, max_size=None) as socket:
            session, targets = await page_session(socket)
            context = targets[0]["browserContextId"]
            for method, params in REFUSED_AT_ROOT:
                params = json.loads(json.dumps(params).replace("{ctx}", context))
                answers[method] = await call(socket, method, params)
            for method, params in REFUSED_ON_THE_PAGE:
                params = json.loads(json.dumps(params).replace("{port}", str(local_server.port)))
                answers[method] = await call(socket, method, params, sessionId=session)
            answers["allowed"] = await call(
                socket, "Runtime.evaluate", {"expression": "1 + 1"}, sessionId=session
            )
        return answers

    answers = asyncio.run(main())
    for method, _ in REFUSED_AT_ROOT + REFUSED_ON_THE_PAGE:
        error = answers[method].get("error", {}).get("message", "")
        assert error.startswith(f"webharness refuses {method}: "), (method, answers[method])
    assert answers["allowed"]["result"]["result"]["value"] == 2
    assert local_server.hits == []


def test_the_agent_is_shown_its_episodes_targets_only(env: gym.Env) -> None:
    env.reset(seed=0)

    async def main() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        async with attach(env) as url, connect(url, max_size=None) as socket:
            _, targets = await page_session(socket)
            contexts = await call(socket, "Target.getBrowserContexts")
            return targets, contexts

    targets, contexts = asyncio.run(main())
    assert {t["browserContextId"] for t in targets} == set(contexts["result"]["browserContextIds"])
    assert [t["type"] for t in targets] == ["page"]


def test_the_agents_navigation_and_its_pages_requests_never_reach_the_server(
    env: gym.Env, local_server: LocalServer
) -> None:
    env.reset(seed=0)
    local_server.hits.clear()
    secret = f"http://127.0.0.1:{local_server.port}/secret"

    async def main() -> list[str]:
        refusals = []
        async with attach(env) as url, async_playwright() as playwright:
            browser = await playwright.chromium.connect_over_cdp(url)
            page = browser.contexts[0].pages[0]
            for go in (lambda: page.goto(secret), lambda: browser.contexts[0].new_page()):
                try:
                    opened = await go()
                    if opened is not None and hasattr(opened, "goto"):
                        await opened.goto(secret)
                except PlaywrightError as exc:
                    refusals.append(str(exc).splitlines()[0])
            await page.get_by_role("button", name="Fetch local server").click()
            await page.get_by_role("button", name="Open local server").click()
            await browser.close()
        return refusals

    refusals = asyncio.run(main())
    assert len(refusals) == 2 and all("webharness refuses" in r for r in refusals)
    blocked = env.step("wait(300)")[4]["semantic_state"].blocked_requests
    assert any(f"127.0.0.1:{local_server.port}" in b for b in blocked)
    assert local_server.hits == []
