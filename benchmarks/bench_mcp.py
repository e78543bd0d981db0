"""What the MCP door costs: a ``browser_click`` over streamable HTTP (its result carries the
snapshot) against ``env.step`` of the same click with the same text observation, under the
same wrappers (``GoldenTraceAlignment``, ``FailureAnnotation``), in one run. With
``--obs-mode both`` (``webharness mcp``'s default) each step also takes the screenshot
that the trace keeps and ``browser_take_screenshot`` serves; with ``text``, it does not.

Same page and work as ``bench_step.py``: WebEval/form-v0's add-contact panel, the "VIP
customer" checkbox clicked again and again. Two MCP clients, in this process, call the
server (``webharness mcp``'s, on 127.0.0.1): the official ``mcp`` SDK's, as most Python
agents use it, and ``WireClient``, a minimal one (one keep-alive connection, one JSON-RPC
POST per call), which shows what the server itself costs: the SDK's client adds
milliseconds of its own that any server's calls pay. All three are measured in alternating
blocks, so drift in the machine's load hits each. The claim is the ratio of the medians.

The server runs as users run it, ``webharness mcp --http`` in a process of its own, and
the client (this process) stands for the agent; ``env.step`` runs in this process, on a
browser of its own.

Run: python benchmarks/bench_mcp.py [--steps 40] [--rounds 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from door_modes import env_steps, run_modes  # benchmarks/, run as a script
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from webharness.browser.shared import keep_browser
from webharness.mcp import EpisodeConfig, make_env

ENV_ID = "WebEval/form-v0"


async def mcp_clicks(session: ClientSession, steps: int, seed: int) -> list[float]:
    """Seconds per ``browser_click`` of the checkbox, over HTTP with the SDK's client; its
    refs read from the snapshots, as an agent reads them."""
    reset = await session.call_tool("webharness_reset", {"seed": seed})
    new = ref_in(reset.content[0].text, 'button "New contact"')  # type: ignore[union-attr]
    opened = await session.call_tool("browser_click", {"target": new})
    checkbox = ref_in(opened.content[0].text, 'checkbox "VIP')  # type: ignore[union-attr]
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        result = await session.call_tool("browser_click", {"target": checkbox})
        times.append(time.perf_counter() - started)
        assert not result.is_error and "### Snapshot" in result.content[0].text  # type: ignore[union-attr]
    return times


class WireClient:
    """A minimal streamable-HTTP MCP client: one keep-alive connection, one POST per call;
    it reads a JSON answer or an SSE stream's."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.path, self.session = parts.path, ""
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port)
        self.sent = 0
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
        self.request("initialize", {**hello, "clientInfo": {"name": "wire", "version": "0"}})
        self.request("notifications/initialized", None)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """The text of a tool call's result."""
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        assert result is not None and not result.get("isError"), result
        return str(result["content"][0]["text"])

    def request(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """One JSON-RPC request's result (None for a notification)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            self.sent += 1
            message |= {"id": self.sent, "params": params}
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        try:
            self.connection.request("POST", self.path, json.dumps(message), headers)
        except (BrokenPipeError, ConnectionResetError):  # the server closed an idle connection
            self.connection.close()
            self.connection.request("POST", self.path, json.dumps(message), headers)
        response = self.connection.getresponse()
        self.session = response.getheader("mcp-session-id") or self.session
        body = response.read().decode()
        if params is None:
            return None
        if response.getheader("content-type", "").startswith("text/event-stream"):
            data = [line[5:] for line in body.splitlines() if line.startswith("data:")]
            body = next(d for d in data if json.loads(d).get("id") == self.sent)
        return dict(json.loads(body)["result"])


def wire_clicks(client: WireClient, steps: int, seed: int) -> list[float]:
    """Seconds per ``browser_click`` of the checkbox with the minimal client."""
    new = ref_in(client.call_tool("webharness_reset", {"seed": seed}), 'button "New contact"')
    checkbox = ref_in(client.call_tool("browser_click", {"target": new}), 'checkbox "VIP')
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        text = client.call_tool("browser_click", {"target": checkbox})
        times.append(time.perf_counter() - started)
        assert "### Snapshot" in text
    return times


NOOP = ("browser_tabs", {"action": "list"})  # answered from the last observation: no step


async def sdk_noops(session: ClientSession, calls: int) -> list[float]:
    """Seconds per call that takes no step, with the SDK's client."""
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        await session.call_tool(*NOOP)
        times.append(time.perf_counter() - started)
    return times


def wire_noops(client: WireClient, calls: int) -> list[float]:
    """Seconds per call that takes no step, with the minimal client."""
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        client.call_tool(*NOOP)
        times.append(time.perf_counter() - started)
    return times


def ref_in(text: str, line_start: str) -> str:
    """The ref on the snapshot line that starts with ``line_start``."""
    line = next(x for x in text.splitlines() if x.lstrip("- ").startswith(line_start))
    return line.rsplit("[ref=", 1)[1].split("]", 1)[0]


@contextlib.contextmanager
def mcp_server(obs_mode: str) -> Iterator[str]:
    """``webharness mcp --http`` on form-v0 in a process of its own; its endpoint URL."""
    command = [sys.executable, "-m", "webharness.cli", "mcp", "form", "--http"]
    command += ["--obs-mode", obs_mode, "--max-steps", "100000"]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        line = server.stderr.readline()  # "MCP endpoint: http://127.0.0.1:PORT/mcp/TOKEN"
        yield line.split("MCP endpoint: ", 1)[1].strip()
    finally:
        server.terminate()
        server.wait(timeout=30)


async def run(steps: int, rounds: int, obs_mode: str) -> dict[str, Any]:
    env = make_env(EpisodeConfig(ENV_ID, obs_mode=obs_mode, max_steps=100_000))
    step_times: list[float] = []
    sdk_times: list[float] = []
    wire_times: list[float] = []
    try:
        with mcp_server(obs_mode) as url:
            async with streamable_http_client(url) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    wire = WireClient(url)  # a second session on the server: a page of its own
                    env_steps(env, 5)  # warm all three: the browsers, the golden traces
                    await mcp_clicks(session, 5, seed=0)
                    wire_clicks(wire, 5, seed=0)
                    for _ in range(rounds):
                        step_times += await asyncio.to_thread(env_steps, env, steps)
                        sdk_times += await mcp_clicks(session, steps, seed=0)
                        wire_times += await asyncio.to_thread(wire_clicks, wire, steps, 0)
                    # A call that takes no step: what each client and the server cost alone.
                    sdk_noop = await sdk_noops(session, steps)
                    wire_noop = await asyncio.to_thread(wire_noops, wire, steps)
    finally:
        env.close()
    step_ms, sdk_ms, wire_ms, sdk_noop_ms, wire_noop_ms = (
        statistics.median(times) * 1000
        for times in (step_times, sdk_times, wire_times, sdk_noop, wire_noop)
    )
    return {
        "obs_mode": obs_mode,
        "env_step_ms": round(step_ms, 1),
        "mcp_click_ms": round(wire_ms, 1),
        "mcp_over_step": round(wire_ms / step_ms, 3),
        "sdk_client_click_ms": round(sdk_ms, 1),
        "sdk_client_over_step": round(sdk_ms / step_ms, 3),
        "noop_call_ms": round(wire_noop_ms, 2),
        "sdk_client_noop_call_ms": round(sdk_noop_ms, 2),
        "samples": len(step_times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40, help="clicks per block")
    parser.add_argument("--rounds", type=int, default=3, help="blocks of each, alternating")
    parser.add_argument(
        "--obs-mode",
        action="append",
        choices=["text", "both"],
        help="the episode's observation (repeatable; default: both, then text)",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with keep_browser():
        run_modes(lambda mode: run(args.steps, args.rounds, mode), args.obs_mode, args.json)


if __name__ == "__main__":
    main()
