"""An MCP server over one webharness episode, with Playwright MCP's tools (``webharness mcp``).

An agent written for Playwright MCP plays a webharness task unchanged: each state-changing
tool call is one ``env.step`` under ``RecordTrace``, ``GoldenTraceAlignment`` and
``FailureAnnotation``; the episode's outcome comes back in the tool results. Served over
stdio (``serve_stdio``) or streamable HTTP on 127.0.0.1 (``EpisodeEndpoints``,
``serve_http``). Needs the ``mcp`` extra: ``pip install 'webharness[mcp]'``.
"""

from webharness.mcp.catalogue import ToolDef, ToolInputError, playwright_tools, served_tools
from webharness.mcp.episodes import (
    EpisodeConfig,
    EpisodeEndedError,
    McpEpisode,
    ServedEpisode,
    StepResult,
    make_env,
)
from webharness.mcp.http import (
    Endpoint,
    EpisodeEndpoints,
    ServingThread,
    SessionEpisodes,
    serve_http,
)
from webharness.mcp.server import build_server, serve_stdio
from webharness.mcp.tools import ToolRunner

__all__ = [
    "Endpoint",
    "EpisodeConfig",
    "EpisodeEndedError",
    "EpisodeEndpoints",
    "McpEpisode",
    "ServedEpisode",
    "ServingThread",
    "SessionEpisodes",
    "StepResult",
    "ToolDef",
    "ToolInputError",
    "ToolRunner",
    "build_server",
    "make_env",
    "playwright_tools",
    "serve_http",
    "serve_stdio",
    "served_tools",
]
