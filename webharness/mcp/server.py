"""The MCP server of one episode, on the official ``mcp`` SDK's low-level ``Server``.

It offers the tools, and the goal as a prompt and a resource; ``serve_stdio`` serves it
over stdio.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from webharness.mcp.episodes import McpEpisode
from webharness.mcp.tools import ToolRunner

GOAL_URI = "webharness://task/goal"
INSTRUCTIONS = (
    "A web task in a real browser, with Playwright MCP's tools. Read the goal with "
    "webharness_task, act with the browser_* tools, and end the episode with webharness_answer "
    "(a final answer), webharness_done or webharness_report_infeasible."
)


def build_server(
    episode: McpEpisode, *, reset: bool, new_session_resets: bool = False
) -> Server[Any]:
    """The MCP server over ``episode``.

    ``reset`` offers the ``webharness_reset`` tool; ``new_session_resets`` starts a new
    episode for each new session after the first (HTTP).

    Calls run one at a time in a worker thread (the env blocks on the browser).
    """
    runner = ToolRunner(episode, reset)
    limiter = anyio.CapacityLimiter(1)
    sessions: list[str] = []  # the HTTP session (Mcp-Session-Id) playing the episode

    async def in_thread(function: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(function, *args, limiter=limiter)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=runner.list_tools())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        session = _session_id(ctx)
        if new_session_resets and session is not None and sessions != [session]:
            if sessions:
                await in_thread(episode.reset)
            sessions[:] = [session]
        result: types.CallToolResult = await in_thread(runner.call, params.name, params.arguments)
        return result

    async def goal() -> str:
        return str(await in_thread(lambda: episode.goal))

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        prompt = types.Prompt(name="webharness_task", description="The task's goal")
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != "webharness_task":
            raise ValueError(
                f"prompt {params.name!r} not found: the one prompt is 'webharness_task'"
            )
        text = types.TextContent(type="text", text=await goal())
        message = types.PromptMessage(role="user", content=text)
        return types.GetPromptResult(description="The task's goal", messages=[message])

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        resource = types.Resource(
            name="goal", uri=GOAL_URI, description="The task's goal", mime_type="text/plain"
        )
        return types.ListResourcesResult(resources=[resource])

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if str(params.uri) != GOAL_URI:
            raise ValueError(f"resource {params.uri!r} not found: the one resource is {GOAL_URI}")
        contents = types.TextResourceContents(
            uri=GOAL_URI, text=await goal(), mime_type="text/plain"
        )
        return types.ReadResourceResult(contents=[contents])

    return Server(
        "webharness",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def _session_id(ctx: Any) -> str | None:
    """The HTTP session a request belongs to (its ``Mcp-Session-Id``); None without one."""
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    return headers.get("mcp-session-id") if headers is not None else None


async def serve_stdio(episode: McpEpisode) -> None:
    """Serve ``episode`` over stdin/stdout until the client closes; close its browser then."""
    from mcp.server.stdio import stdio_server

    server = build_server(episode, reset=True)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await anyio.to_thread.run_sync(episode.close)
