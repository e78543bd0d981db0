"""An agent built with the OpenAI Agents SDK (``openai-agents``), as its users write one: an
``Agent`` with the episode's MCP server (the SDK's own streamable HTTP client), run by
``Runner.run`` on the goal, its final output printed. Its model is whatever
``OPENAI_BASE_URL`` serves, through Chat Completions; tracing is off, so nothing leaves
127.0.0.1.

Run by ``webharness run --agents 'mcp[command="python -m tests.support.agents_sdk_agent
--model NAME"]'``; the goal and the endpoint come from ``WEBHARNESS_GOAL`` and
``WEBHARNESS_MCP_URL``.
"""

from __future__ import annotations

import argparse
import asyncio
import os

from agents import Agent, Runner, set_default_openai_api, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp

INSTRUCTIONS = (
    "You operate a web browser through the tools. Read the page with browser_snapshot, act "
    "with the browser_* tools, and finish with webharness_answer, webharness_done or "
    "webharness_report_infeasible."
)


async def main(model: str) -> None:
    set_tracing_disabled(True)
    set_default_openai_api("chat_completions")
    params = {"url": os.environ["WEBHARNESS_MCP_URL"], "timeout": 60}
    async with MCPServerStreamableHttp(
        params, client_session_timeout_seconds=60, cache_tools_list=True
    ) as server:
        agent = Agent(name="browser", instructions=INSTRUCTIONS, mcp_servers=[server], model=model)
        result = await Runner.run(agent, os.environ["WEBHARNESS_GOAL"], max_turns=100)
    print(result.final_output)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    asyncio.run(main(parser.parse_args().model))
