"""Eight concurrent HTTP sessions on one ``webharness mcp`` endpoint, each playing a different
task and seed, never see one another's page (Playwright MCP's own open bug, their #1631:
its sessions share one browser context)."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.mcp_clients import http_server, http_session, text_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TASKS = ["form", "search", "login", "shop", "navigate", "stats", "validation", "combobox"]


async def play(url: str, task: str, seed: int) -> dict[str, str]:
    """Start the session's own episode, then read its goal and page twice: before and
    after every other session has started its own."""
    async with http_session(url) as session:
        started = text_of(await session.call_tool("webharness_reset", {"task": task, "seed": seed}))
        goal = text_of(await session.call_tool("webharness_task", {}))
        await asyncio.sleep(0)  # let the other sessions interleave their calls with ours
        snapshot = text_of(await session.call_tool("browser_snapshot", {}))
        return {"started": started, "goal": goal, "snapshot": snapshot}


async def play_all(url: str) -> list[dict[str, str]]:
    return await asyncio.gather(*(play(url, task, seed) for seed, task in enumerate(TASKS)))


def test_eight_sessions_each_see_only_their_own_task_and_page(browser: None) -> None:
    with http_server("form", "--tasks", ",".join(TASKS)) as (url, _):
        results = asyncio.run(play_all(url))
    for seed, (task, result) in enumerate(zip(TASKS, results, strict=True)):
        assert f"- Task: WebEval/{task}-v0\n- Seed: {seed}" in result["started"]
        goal = result["started"].split("- Goal: ", 1)[1].split("\n", 1)[0]
        assert result["goal"] == f"### Result\n{goal}"
        others = [r for r in results if r is not result]
        # Each session's page is its own task's: its URL and snapshot are what the reset
        # showed, and no other session's goal is on it.
        assert _page(result["snapshot"]) == _page(result["started"])
        for other in others:
            other_goal = other["started"].split("- Goal: ", 1)[1].split("\n", 1)[0]
            assert other_goal != goal
    assert len({_page(r["snapshot"]) for r in results}) == len(TASKS)


def _page(text: str) -> str:
    """The ``### Page`` and ``### Snapshot`` sections of a tool result."""
    return text[text.index("### Page") :]
