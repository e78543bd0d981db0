"""An MCP agent plays form-v0 through ``webharness mcp`` (stdio and streamable HTTP): the
golden path succeeds, and a faulty run gets the failure report its DSL twin gets through
``env.step``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio
import pytest
from mcp import ClientSession

from tests.support.episodes import play
from tests.support.mcp_clients import (
    http_server,
    http_session,
    stdio_session,
    text_of,
    tool_call,
)
from tests.support.mcp_clients import (
    oracle_actions as golden_actions,
)
from webharness.mcp import EpisodeConfig, make_env

TASK, SEED = "WebEval/form-v0", 0
ARGS = ("form", "--seed", str(SEED), "--obs-mode", "text")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def oracle_actions(browser: None) -> list[str]:
    """The DSL actions of the oracle's golden path on the seed."""
    return golden_actions(TASK, SEED)


def play_dsl(actions: list[str]) -> dict[str, Any]:
    """The last info of ``actions`` played through ``env.step`` under the server's wrappers."""
    env = make_env(EpisodeConfig(TASK, obs_mode="text"))
    steps = iter(actions)
    try:
        return play(env, lambda obs, info: next(steps), SEED).last
    finally:
        env.close()


def play_mcp(
    session_of: Callable[[], AbstractAsyncContextManager[ClientSession]], actions: list[str]
) -> Any:
    """Play ``actions`` as MCP tool calls; the last result."""

    async def main() -> Any:
        async with session_of() as session:
            result = None
            for action in actions:
                name, arguments = tool_call(action)
                result = await session.call_tool(name, arguments)
                assert not result.is_error, text_of(result)
            return result

    return anyio.run(main)


def faulty(actions: list[str]) -> list[str]:
    """A false success: the golden path without its Save click, then done()."""
    save = max(i for i, a in enumerate(actions) if a.startswith("click("))
    return [*actions[:save], "done()"]


def outcome(info: dict[str, Any]) -> dict[str, Any]:
    failure = info["failure"]
    return {
        "ended": True,
        "success": bool(info["success"]),
        "step": info["step"],
        "failure_code": failure.code.value if failure.code else None,
        "failure_step": failure.step,
        "failure_stage": failure.stage.value if failure.stage else None,
    }


def test_the_golden_path_over_stdio_succeeds(oracle_actions: list[str]) -> None:
    result = play_mcp(lambda: stdio_session(*ARGS), oracle_actions)
    assert result.structured_content["success"] is True
    assert "### Episode\n- Ended: done" in text_of(result)
    assert "- Success: yes" in text_of(result)


def test_a_false_success_over_stdio_is_diagnosed_as_its_dsl_twin(oracle_actions: list[str]) -> None:
    actions = faulty(oracle_actions)
    result = play_mcp(lambda: stdio_session(*ARGS), actions)
    expected = outcome(play_dsl(actions))
    assert expected["success"] is False and expected["failure_code"] is not None
    assert result.structured_content == expected
    assert f"- Failure: {expected['failure_code']} at step {expected['failure_step']}" in text_of(
        result
    )


def test_the_golden_path_and_a_false_success_over_http(oracle_actions: list[str]) -> None:
    with http_server(*ARGS) as (url, _):
        golden = play_mcp(lambda: http_session(url), oracle_actions)
        # A new session on the endpoint is a new episode.
        wrong = play_mcp(lambda: http_session(url), faulty(oracle_actions))
    assert golden.structured_content["success"] is True
    assert wrong.structured_content == outcome(play_dsl(faulty(oracle_actions)))
