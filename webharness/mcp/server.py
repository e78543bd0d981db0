"""The MCP server of one episode over stdio, on the official ``mcp`` SDK's low-level ``Server``.

It hands each request to ``McpMethods``, which the HTTP endpoint answers from too, in a
worker thread (the methods block on the browser). Over stdio there is one client, so no
session: every request plays the one episode.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from webharness.mcp.episodes import McpEpisode, ServedEpisode
from webharness.mcp.methods import INSTRUCTIONS, McpMethods


def build_server(episode: ServedEpisode, *, reset: bool) -> Server[Any]:
    """The SDK server over ``episode``; ``reset`` offers the ``webharness_reset`` tool."""
    methods = McpMethods(lambda _: episode, reset=reset)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return methods.list_tools(None)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await anyio.to_thread.run_sync(methods.call_tool, None, params)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return methods.list_prompts()

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return await anyio.to_thread.run_sync(methods.get_prompt, None, params)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return methods.list_resources(None)

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await anyio.to_thread.run_sync(methods.read_resource, None, params)

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


async def serve_stdio(episode: McpEpisode) -> None:
    """Serve ``episode`` over stdin/stdout until the client closes; close its browser then."""
    from mcp.server.stdio import stdio_server

    server = build_server(episode, reset=True)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await anyio.to_thread.run_sync(episode.close)
