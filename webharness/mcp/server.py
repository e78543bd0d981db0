"""The MCP server of one episode, on the official ``mcp`` SDK's low-level ``Server``.

It offers the tools, and the goal as a prompt and a resource; ``serve_stdio`` serves it
over stdio.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from webharness.mcp.episodes import McpEpisode, ServedEpisode
from webharness.mcp.tools import ToolRunner

GOAL_URI = "webharness://task/goal"
INSTRUCTIONS = (
    "A web task in a real browser, with Playwright MCP's tools. Read the goal with "
    "webharness_task, act with the browser_* tools, and end the episode with webharness_answer "
    "(a final answer), webharness_done or webharness_report_infeasible."
)


EpisodeOf = Callable[[str | None], ServedEpisode]  # an HTTP session's id (None: stdio)


def build_server(episode_of: EpisodeOf, *, reset: bool) -> Server[Any]:
    """The MCP server over the episodes ``episode_of`` gives each session.

    ``reset`` offers the ``webharness_reset`` tool. Each episode's calls run one at a time
    in a worker thread (the env blocks on the browser); different sessions' episodes run
    side by side.
    """
    runners: dict[int, tuple[ToolRunner, anyio.CapacityLimiter]] = {}

    def runner_of(ctx: Any) -> tuple[ToolRunner, anyio.CapacityLimiter]:
        episode = episode_of(_session_id(ctx))
        if id(episode) not in runners:
            runners[id(episode)] = (ToolRunner(episode, reset), anyio.CapacityLimiter(1))
        return runners[id(episode)]

    async def in_thread(ctx: Any, function: Any, *args: Any) -> Any:
        limiter = runner_of(ctx)[1]
        return await anyio.to_thread.run_sync(function, *args, limiter=limiter)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=runner_of(ctx)[0].list_tools())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        runner = runner_of(ctx)[0]
        result: types.CallToolResult = await in_thread(
            ctx, runner.call, params.name, params.arguments
        )
        return result

    async def goal(ctx: Any) -> str:
        episode = runner_of(ctx)[0].episode
        return str(await in_thread(ctx, lambda: episode.goal))

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        prompt = types.Prompt(name="webharness_task", description="The task's goal")
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != "webharness_task":
            raise ValueError(
                f"prompt {params.name!r} not found: the one prompt is 'webharness_task'"
            )
        text = types.TextContent(type="text", text=await goal(ctx))
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
            uri=GOAL_URI, text=await goal(ctx), mime_type="text/plain"
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

    server = build_server(lambda _: episode, reset=True)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await anyio.to_thread.run_sync(episode.close)
