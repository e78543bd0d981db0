"""A closed or killed MCP server leaves no browser process behind: the stdio server closes
its env when the client goes; an HTTP server ended mid-session takes its Chromium with it."""

from __future__ import annotations

import os
import signal
import subprocess

import anyio
import pytest

from tests.support.mcp_clients import http_server, http_session, stdio_session
from webharness.testing.processes import chromium_pids, descendants, wait_for_exit

pytestmark = pytest.mark.own_browser  # counts the Chromium processes it starts


def test_a_closed_stdio_session_leaves_no_browser(browser: None) -> None:
    async def main() -> set[int]:
        async with stdio_session("form", "--obs-mode", "text") as session:
            await session.call_tool("browser_snapshot", {})
            return chromium_pids()

    running = anyio.run(main)
    assert running, "the server's Chromium was not found while it ran"
    assert wait_for_exit(running, 30)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["terminated", "killed"])
def test_an_ended_http_server_leaves_no_browser(browser: None, how: signal.Signals) -> None:
    async def end_server_mid_session(url: str, process: subprocess.Popen[str]) -> dict[int, str]:
        async with http_session(url) as session:
            await session.call_tool("browser_snapshot", {})
            started = descendants(process.pid)
            os.kill(process.pid, how)  # the session is still open: nobody closed its episode
            process.wait(timeout=30)
        return started

    with http_server("form", "--obs-mode", "text") as (url, process):
        started = anyio.run(end_server_mid_session, url, process)
        assert any("chrom" in name for name in started.values())
        assert wait_for_exit(started, 30)
