"""``webharness mcp --cdp``: an agent that takes the task's tools over MCP and drives the
episode's browser itself over CDP. Its Playwright script's steps are the episode's, in order
with its answer; each episode (a reset, an HTTP session) has a door of its own that shows its
page only and closes with it; without ``--cdp`` the tool and the resource say to pass it."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from playwright.async_api import Browser, async_playwright
from playwright.async_api import Error as PlaywrightError

from tests.external.test_cdp_door import golden_script
from tests.support.mcp_clients import SERVER, http_server, http_session, text_of
from webharness.mcp.methods import CDP_URI

ARGS = ("form", "--seed", "0", "--obs-mode", "text", "--cdp")


@asynccontextmanager
async def stdio_with_stderr(*args: str) -> AsyncIterator[tuple[ClientSession, Any]]:
    """A client session with ``webharness mcp ARGS`` over stdio, and the server's stderr
    (a file the test reads)."""
    params = StdioServerParameters(command=SERVER[0], args=[*SERVER[1:], *args])
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session, errlog


async def cdp_url(session: ClientSession) -> str:
    result = await session.call_tool("webharness_cdp_url", {})
    assert not result.is_error, text_of(result)
    url = result.structured_content["cdp_url"]
    assert isinstance(url, str) and url.startswith("ws://127.0.0.1:")
    return url


async def titles_seen(browser: Browser) -> list[str]:
    return [await page.title() for context in browser.contexts for page in context.pages]


@pytest.mark.slow
def test_a_playwright_script_over_cdp_and_an_answer_over_mcp_pass(browser: None) -> None:
    async def main() -> tuple[Any, str, str, str]:
        async with stdio_with_stderr(*ARGS) as (session, errlog):
            url = await cdp_url(session)
            read = await session.read_resource(CDP_URI)
            async with async_playwright() as playwright:
                cdp = await playwright.chromium.connect_over_cdp(url)
                await golden_script(cdp.contexts[0].pages[0])
                await cdp.close()
            result = await session.call_tool("webharness_answer", {"text": "Added Thea Olsen."})
            ended = await session.call_tool("webharness_cdp_url", {})
            errlog.seek(0)
            return result, url, read.contents[0].text, errlog.read() + text_of(ended)

    result, url, resource, rest = anyio.run(main)
    outcome = result.structured_content
    # New contact, three typing runs, the country (a script), the check box, Save; the answer
    assert outcome["success"] is True and outcome["step"] == 8
    assert outcome["failure_code"] is None
    assert resource == url
    assert f"CDP endpoint: {url}" in rest  # on the server's stderr, as the door opened
    assert "the episode has ended, and its browser is no longer served over CDP" in rest


@pytest.mark.slow
def test_each_http_session_and_each_reset_has_a_door_of_its_own(browser: None) -> None:
    async def main() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        with http_server(*ARGS) as (endpoint, _):
            async with http_session(endpoint) as one, http_session(endpoint) as two:
                urls = [await cdp_url(one), await cdp_url(two)]
                await two.call_tool("webharness_reset", {"seed": 1})
                seen["after_reset"] = await cdp_url(two)
                async with async_playwright() as playwright:
                    mine = await playwright.chromium.connect_over_cdp(urls[0])
                    page = mine.contexts[0].pages[0]
                    await page.evaluate("() => { document.title = 'session one'; }")
                    seen["one"] = await titles_seen(mine)
                    theirs = await playwright.chromium.connect_over_cdp(seen["after_reset"])
                    seen["two"] = await titles_seen(theirs)
                    try:
                        await playwright.chromium.connect_over_cdp(urls[1], timeout=5000)
                        seen["old_door"] = "open"
                    except PlaywrightError:
                        seen["old_door"] = "shut"
                    await mine.close()
                    await theirs.close()
                seen["urls"] = urls
                seen["step"] = (await one.call_tool("webharness_done", {})).structured_content
        return seen

    seen = anyio.run(main)
    assert len(set([*seen["urls"], seen["after_reset"]])) == 3
    assert seen["one"] == ["session one"]  # its own page only
    assert len(seen["two"]) == 1 and seen["two"] != ["session one"]
    assert seen["old_door"] == "shut"  # the reset closed the first episode's door
    assert seen["step"]["step"] == 2  # the title the script set, then done()


def test_the_cdp_url_without_cdp_says_to_pass_it() -> None:
    async def main() -> tuple[Any, str]:
        async with stdio_with_stderr("form") as (session, _):
            tools = {tool.name for tool in (await session.list_tools()).tools}
            assert "webharness_cdp_url" not in tools
            result = await session.call_tool("webharness_cdp_url", {})
            with pytest.raises(MCPError) as read:
                await session.read_resource(CDP_URI)
            return result, str(read.value)

    result, read = anyio.run(main)
    assert result.is_error
    assert "start webharness mcp with --cdp" in text_of(result)
    assert "serves no CDP: start it with webharness mcp --cdp" in read


@pytest.mark.slow
def test_a_cdp_step_that_ends_the_episode_shuts_its_door(browser: None) -> None:
    """At the step budget (one step) the agent's click ends the episode: its door closes,
    and the tool says the episode has ended."""

    async def main() -> tuple[str, str]:
        async with stdio_with_stderr(*ARGS, "--max-steps", "1") as (session, _):
            url = await cdp_url(session)
            async with async_playwright() as playwright:
                cdp = await playwright.chromium.connect_over_cdp(url)
                page = cdp.contexts[0].pages[0]
                await page.get_by_role("button", name="New contact").click()
                with contextlib.suppress(PlaywrightError):  # its door may close under it
                    await page.title()  # the click is recorded as this command comes
                door = await door_state(playwright, url)
            ended = await session.call_tool("webharness_cdp_url", {})
            return door, text_of(ended)

    door, ended = anyio.run(main)
    assert door == "shut"
    assert "the episode has ended" in ended and "- Ended: max_steps" in ended


async def door_state(playwright: Any, url: str, within_s: float = 30.0) -> str:
    """ "shut" once a new connection to ``url`` is refused (polled within ``within_s``)."""
    with anyio.move_on_after(within_s):
        while True:
            try:
                browser = await playwright.chromium.connect_over_cdp(url, timeout=5000)
            except PlaywrightError:
                return "shut"
            await browser.close()
            await anyio.sleep(0.05)  # a poll's interval, not a wait for the result
    return "open"
