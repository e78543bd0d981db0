"""Driving ``webharness mcp`` from a test with the ``mcp`` SDK's client: the server over
stdio or streamable HTTP (a subprocess), and a DSL action as the MCP tool call it maps to."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from webharness import actions as A

SERVER = [sys.executable, "-m", "webharness.cli", "mcp"]


@asynccontextmanager
async def stdio_session(*args: str) -> AsyncIterator[ClientSession]:
    """A client session with ``webharness mcp ARGS`` spawned over stdio."""
    params = StdioServerParameters(command=SERVER[0], args=[*SERVER[1:], *args])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


@contextmanager
def http_server(*args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``webharness mcp --http ARGS`` on a free port: its endpoint URL and its process,
    ended with the block."""
    process = subprocess.Popen(
        [*SERVER, "--http", *args], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # the server's first line names its endpoint
        found = re.search(r"http://127\.0\.0\.1:\d+/mcp/\S+", line)
        assert found, f"no endpoint in the server's first line: {line!r}"
        # The rest of its stderr is read on, so a chatty server never blocks on the pipe,
        # and kept: a test that fails shows what the server said meanwhile.
        said: list[str] = []
        threading.Thread(target=said.extend, args=(process.stderr,), daemon=True).start()
        try:
            yield found.group(0), process
        except BaseException as exc:
            exc.add_note("the server's stderr:\n" + "".join(said)[-5000:])
            raise
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stderr is not None:
            process.stderr.close()


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    """A client session with the streamable HTTP endpoint at ``url``."""
    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def tool_call(action: str, focused: str | None = None) -> tuple[str, dict[str, Any]]:
    """The Playwright MCP (or webharness task) tool call that plays DSL ``action``.

    Playwright MCP presses keys and types only where the focus is or into a named element:
    ``press(ref, key)`` is ``browser_press_key`` (the element has the focus after the step
    before), and ``keyboard_type(text)`` is ``browser_type`` into ``focused``, the ref the
    step before clicked.
    """
    parsed = A.parse_action(action)
    match parsed:
        case A.Click(ref=ref):
            return "browser_click", {"target": ref, "element": "the golden step's target"}
        case A.Hover(ref=ref):
            return "browser_hover", {"target": ref}
        case A.Fill(ref=ref, text=text):
            return "browser_type", {"target": ref, "text": text}
        case A.KeyboardType(text=text) if focused is not None:
            return "browser_type", {"target": focused, "text": text}
        case A.SelectOption(ref=ref, option=option):
            return "browser_select_option", {"target": ref, "values": [option]}
        case A.Check(ref=ref) | A.Uncheck(ref=ref):
            value = "true" if isinstance(parsed, A.Check) else "false"
            field = {"target": ref, "name": "box", "type": "checkbox", "value": value}
            return "browser_fill_form", {"fields": [field]}
        case A.Press(key=key):
            return "browser_press_key", {"key": key}
        case A.Wait(ms=ms):
            return "browser_wait_for", {"time": ms / 1000}
        case A.Goto(url=url):
            return "browser_navigate", {"url": url}
        case A.SendMsgToUser(text=text):
            return "webharness_answer", {"text": text}
        case A.AskUser(question=question):
            return "webharness_ask_user", {"question": question}
        case A.ReportInfeasible(reason=reason):
            return "webharness_report_infeasible", {"reason": reason}
        case A.Done():
            return "webharness_done", {}
    raise AssertionError(f"no MCP tool call for {action!r} in this helper")


def tool_calls(actions: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls of a run of DSL actions, one each (``tool_call``)."""
    calls, focused = [], None
    for action in actions:
        calls.append(tool_call(action, focused))
        focused = A.parse_action(action).ref_target or focused
    return calls


def text_of(result: Any) -> str:
    """The text blocks of a tool result, joined."""
    return "\n".join(c.text for c in result.content if c.type == "text")


def oracle_actions(env_id: str, seed: int) -> list[str]:
    """The DSL actions of the oracle's golden path on ``seed``, with text observations."""
    return oracle_runs(env_id, [seed])[seed][1]


def oracle_runs(env_id: str, seeds: list[int]) -> dict[int, tuple[str, list[str]]]:
    """The goal and the oracle's DSL actions of each seed's episode, in one env."""
    import gymnasium as gym

    from tests.support.episodes import oracle_policy, play

    env = gym.make(env_id, obs_mode="text")
    try:
        runs = {seed: play(env, oracle_policy(env), seed) for seed in seeds}
    finally:
        env.close()
    return {seed: (str(r.infos[0]["task"].instruction), r.actions) for seed, r in runs.items()}
