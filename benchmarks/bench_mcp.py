"""What the MCP door costs: a ``browser_click`` over streamable HTTP (its result carries the
snapshot) against ``env.step`` of the same click with the same text observation, under the
same wrappers (``GoldenTraceAlignment``, ``FailureAnnotation``), in one run. With
``--obs-mode both`` (``webharness mcp``'s default) each step also takes the screenshot
that the trace keeps and ``browser_take_screenshot`` serves; with ``text``, it does not.

Same page and work as ``bench_step.py``: WebEval/form-v0's add-contact panel, the "VIP
customer" checkbox clicked again and again. The MCP client is the official ``mcp`` SDK's,
in this process; the server is ``webharness mcp``'s, on 127.0.0.1. The two are measured in
alternating blocks, so drift in the machine's load hits both. The claim is the ratio of
the medians.

The server runs as users run it, ``webharness mcp --http`` in a process of its own, and
the client (this process) stands for the agent; ``env.step`` runs in this process, on a
browser of its own.

Run: python benchmarks/bench_mcp.py [--steps 40] [--rounds 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

from door_modes import env_steps, run_modes  # benchmarks/, run as a script
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from webharness.browser.shared import keep_browser
from webharness.mcp import EpisodeConfig, make_env

ENV_ID = "WebEval/form-v0"


async def mcp_clicks(session: ClientSession, steps: int, seed: int) -> list[float]:
    """Seconds per ``browser_click`` of the checkbox, over HTTP; its refs read from the
    snapshots, as an agent reads them."""
    reset = await session.call_tool("webharness_reset", {"seed": seed})
    new = ref_in(reset, 'button "New contact"')
    checkbox = ref_in(await session.call_tool("browser_click", {"target": new}), 'checkbox "VIP')
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        result = await session.call_tool("browser_click", {"target": checkbox})
        times.append(time.perf_counter() - started)
        assert not result.is_error and "### Snapshot" in result.content[0].text  # type: ignore[union-attr]
    return times


def ref_in(result: Any, line_start: str) -> str:
    """The ref on the snapshot line that starts with ``line_start``."""
    text = result.content[0].text
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
    mcp_times: list[float] = []
    try:
        with mcp_server(obs_mode) as url:
            async with streamable_http_client(url) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    env_steps(env, 5)  # warm both: the browser, the golden traces
                    await mcp_clicks(session, 5, seed=0)
                    for _ in range(rounds):
                        step_times += await asyncio.to_thread(env_steps, env, steps)
                        mcp_times += await mcp_clicks(session, steps, seed=0)
    finally:
        env.close()
    step_ms = statistics.median(step_times) * 1000
    mcp_ms = statistics.median(mcp_times) * 1000
    return {
        "obs_mode": obs_mode,
        "env_step_ms": round(step_ms, 1),
        "mcp_click_ms": round(mcp_ms, 1),
        "mcp_over_step": round(mcp_ms / step_ms, 3),
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
