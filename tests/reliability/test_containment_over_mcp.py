"""Containment holds for what an agent does through the MCP tools: the containment tests'
navigations and clicks, made with Playwright MCP's tools over streamable HTTP, reach
nothing the task does not allow, and the second local server (which logs every request)
receives nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from tests.reliability.conftest import LocalServer, click_action, hostile_env
from tests.support.mcp_clients import http_session, text_of
from webharness.external.recorded_episode import RecordedEpisode
from webharness.mcp import EpisodeEndpoints, ServingThread, StepResult
from webharness.trace.recorder import EpisodeRecorder


@pytest.fixture(scope="module")
def env(browser: None, local_server: LocalServer) -> Iterator[Any]:
    env = hostile_env(local_server.port)
    yield env
    env.close()


def over_mcp(
    env: Any, calls: list[tuple[str, dict[str, Any] | None]], until: str = ""
) -> list[Any]:
    """Reset ``env``, serve its episode at an MCP endpoint, and make ``calls`` (a ``None``
    argument is filled with the ref of the button the call's name ends with); the results,
    then the requests blocked on the last page. With ``until``, up to ten more short
    ``browser_wait_for`` calls are made until a blocked request holds it (some refusals,
    such as a new window's, land after the step that caused them)."""
    obs, info = env.reset(seed=0)
    recorder = EpisodeRecorder(None, agent="mcp")
    recorder.start(info["task"], env)
    episode = RecordedEpisode(env, recorder, StepResult(obs, info, ended=False))
    endpoints = EpisodeEndpoints()
    endpoint = endpoints.add_episode(episode)
    serving = ServingThread(endpoints)
    url = f"http://127.0.0.1:{serving.start()}{endpoint.path}"

    async def main() -> list[Any]:
        results = []
        async with http_session(url) as session:
            for name, arguments in calls:
                if arguments is None:  # browser_click:<button name>
                    name, button = name.split(":", 1)
                    ref = click_action(episode.last.info, button).split("'")[1]
                    arguments = {"target": ref, "element": button}
                results.append(await session.call_tool(name, arguments))
            for _ in range(10):
                if not until or any(until in b for b in blocked()):
                    break
                await session.call_tool("browser_wait_for", {"time": 0.3})
        return results

    def blocked() -> list[str]:
        return list(episode.last.info["semantic_state"].blocked_requests)

    try:
        results = anyio.run(main)
    finally:
        serving.stop()
    return [*results, blocked()]


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "chrome://version",
        "data:text/html,hi",
        "javascript:document.title='x'",
        "view-source:http://webeval.test/",
        "http://127.0.0.1:{port}/secret",
        "http://localhost:{port}/secret",
        "http://webeval.test.evil.example/",
    ],
)
def test_browser_navigate_outside_the_task_is_blocked(
    env: Any, local_server: LocalServer, url: str
) -> None:
    local_server.hits.clear()
    url = url.format(port=local_server.port)
    calls = [("browser_navigate", {"url": url}), ("browser_snapshot", {})]
    navigated, snapshot, blocked = over_mcp(env, calls)
    assert navigated.is_error and "### Error" in text_of(navigated)
    assert blocked, "the attempt should be recorded"
    assert "- Page URL: http://webeval.test/" in text_of(snapshot)
    assert local_server.hits == []


@pytest.mark.parametrize(
    "button",
    ["Fetch local server", "Open local server", "Frame local server", "Image local server"],
)
def test_a_click_through_mcp_cannot_make_the_page_reach_another_port(
    env: Any, local_server: LocalServer, button: str
) -> None:
    local_server.hits.clear()
    clicked, blocked = over_mcp(env, [(f"browser_click:{button}", None)], until="127.0.0.1")
    assert not clicked.is_error, text_of(clicked)
    assert f"127.0.0.1:{local_server.port}" in " ".join(blocked)
    assert local_server.hits == []


def test_a_new_window_opened_through_mcp_is_refused_and_recorded(env: Any) -> None:
    *_, blocked = over_mcp(env, [("browser_click:Open window", None)], until="[new window]")
    assert "http://webeval.test/page2.html [new window]" in blocked
