"""The MCP server of one episode over stdio, on the official ``mcp`` SDK's low-level ``Server``.

It hands each request to ``McpMethods``, which the HTTP endpoint answers from too.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from webharness.mcp.episodes import McpEpisode
from webharness.mcp.methods import INSTRUCTIONS, EpisodeOf, McpMethods


def build_server(episode_of: EpisodeOf, *, reset: bool) -> Server[Any]:
    """The SDK server over the episodes ``episode_of`` gives each session.

    ``reset`` offers the ``webharness_reset`` tool.
    """
    methods = McpMethods(episode_of, reset=reset)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return await methods.list_tools(_session_id(ctx))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await methods.call_tool(_session_id(ctx), params)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return methods.list_prompts()

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return await methods.get_prompt(_session_id(ctx), params)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return methods.list_resources()

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await methods.read_resource(_session_id(ctx), params)

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
