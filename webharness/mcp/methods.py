"""The MCP methods an episode server answers, whatever carries them (stdio or HTTP).

``McpMethods`` answers ``initialize``, ``tools/*``, ``prompts/*``, ``resources/*`` and
``ping`` for the episodes ``episode_of`` gives each session. The methods block on the
browser: the stdio server hands its requests here from the SDK's ``Server`` in worker
threads (``server.py``); the HTTP endpoint calls ``answer`` in each connection's thread
(``jsonrpc_http.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import BaseModel, ValidationError

from webharness import __version__
from webharness.errors import WebHarnessError
from webharness.mcp.episodes import ServedEpisode
from webharness.mcp.tools import ToolRunner

GOAL_URI = "webharness://task/goal"
CDP_URI = "webharness://episode/cdp_url"  # with --cdp: the running episode's CDP URL
INSTRUCTIONS = (
    "A web task in a real browser, with Playwright MCP's tools. Read the goal with "
    "webharness_task, act with the browser_* tools, and end the episode with webharness_answer "
    "(a final answer), webharness_done or webharness_report_infeasible."
)
CAPABILITIES = types.ServerCapabilities(
    tools=types.ToolsCapability(list_changed=False),
    prompts=types.PromptsCapability(list_changed=False),
    resources=types.ResourcesCapability(subscribe=False, list_changed=False),
)

P = TypeVar("P", bound=BaseModel)
EpisodeOf = Callable[[str | None], ServedEpisode]  # an HTTP session's id (None: stdio)


class McpMethods:
    """The MCP methods over the episodes ``episode_of`` gives each session.

    Each episode's calls run one at a time, in the caller's thread (the env blocks on the
    browser); different sessions' episodes run side by side.

    Args:
        episode_of: a session's episode (the session's id; None over stdio).
        reset: offer the ``webharness_reset`` tool.
    """

    def __init__(self, episode_of: EpisodeOf, *, reset: bool) -> None:
        self.episode_of, self.reset = episode_of, reset
        self._runners: dict[int, tuple[ToolRunner, threading.Lock]] = {}
        self._runners_lock = threading.Lock()

    def initialize(self, params: types.InitializeRequestParams) -> types.InitializeResult:
        """The handshake's answer: the client's protocol version if known, else the latest."""
        asked = params.protocol_version
        version = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else None
        return types.InitializeResult(
            protocol_version=version or LATEST_HANDSHAKE_VERSION,
            capabilities=CAPABILITIES,
            server_info=types.Implementation(name="webharness", version=__version__),
            instructions=INSTRUCTIONS,
        )

    def list_tools(self, session: str | None) -> types.ListToolsResult:
        """The tools the session's episode offers."""
        return types.ListToolsResult(tools=self._runner(session)[0].list_tools())

    def call_tool(
        self, session: str | None, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        """One tool call on the session's episode, after its calls before."""
        runner, turn = self._runner(session)
        with turn:
            return runner.call(params.name, params.arguments)

    def goal(self, session: str | None) -> str:
        """The session's episode's instruction."""
        runner, turn = self._runner(session)
        with turn:
            return runner.episode.goal

    def list_prompts(self) -> types.ListPromptsResult:
        """The one prompt: the task's goal."""
        prompt = types.Prompt(name="webharness_task", description="The task's goal")
        return types.ListPromptsResult(prompts=[prompt])

    def get_prompt(
        self, session: str | None, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        """The goal as a user message; another prompt's name is an invalid-params error."""
        if params.name != "webharness_task":
            raise MCPError(
                types.INVALID_PARAMS,
                f"prompt {params.name!r} not found: the one prompt is 'webharness_task'",
            )
        text = types.TextContent(type="text", text=self.goal(session))
        message = types.PromptMessage(role="user", content=text)
        return types.GetPromptResult(description="The task's goal", messages=[message])

    def list_resources(self, session: str | None) -> types.ListResourcesResult:
        """The task's goal, and with ``--cdp`` the running episode's CDP URL."""
        resources = [
            types.Resource(
                name="goal", uri=GOAL_URI, description="The task's goal", mime_type="text/plain"
            )
        ]
        if self._runner(session)[0].episode.cdp:
            described = "The running episode's browser over CDP (a WebSocket URL)"
            resources.append(
                types.Resource(
                    name="cdp_url", uri=CDP_URI, description=described, mime_type="text/plain"
                )
            )
        return types.ListResourcesResult(resources=resources)

    def read_resource(
        self, session: str | None, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        """The goal or the CDP URL as text; another URI is an invalid-params error, and so
        is the CDP URL without ``--cdp`` or after the episode's end."""
        uri = str(params.uri)
        if uri == CDP_URI:
            runner, turn = self._runner(session)
            try:
                with turn:
                    text = str(runner.episode.cdp_url())
            except WebHarnessError as exc:
                raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        elif uri == GOAL_URI:
            text = self.goal(session)
        else:
            known = ", ".join(r.uri for r in self.list_resources(session).resources)
            raise MCPError(
                types.INVALID_PARAMS, f"resource {params.uri!r} not found: the resources: {known}"
            )
        contents = types.TextResourceContents(uri=uri, text=text, mime_type="text/plain")
        return types.ReadResourceResult(contents=[contents])

    def answer(self, session: str | None, method: str, params: Any) -> BaseModel:
        """The result of request ``method`` with its raw ``params`` (``initialize`` aside).

        An unknown method or malformed params raise ``MCPError`` with the JSON-RPC code.
        """
        match method:
            case "ping":
                return types.EmptyResult()
            case "tools/list":
                return self.list_tools(session)
            case "tools/call":
                return self.call_tool(session, _params(types.CallToolRequestParams, params))
            case "prompts/list":
                return self.list_prompts()
            case "prompts/get":
                return self.get_prompt(session, _params(types.GetPromptRequestParams, params))
            case "resources/list":
                return self.list_resources(session)
            case "resources/read":
                read = _params(types.ReadResourceRequestParams, params)
                return self.read_resource(session, read)
        raise MCPError(types.METHOD_NOT_FOUND, f"method {method!r} is not one this server offers")

    def forget(self, episode: ServedEpisode) -> None:
        """Drop the tools kept for ``episode``, whose session has ended for good (without
        this, a server seeing many sessions kept every ended one's episode)."""
        with self._runners_lock:
            self._runners.pop(id(episode), None)

    # --- helpers --------------------------------------------------------------------------
    def _runner(self, session: str | None) -> tuple[ToolRunner, threading.Lock]:
        """The session's episode's tools, and the lock its calls take turns on."""
        episode = self.episode_of(session)
        with self._runners_lock:
            if id(episode) not in self._runners:
                self._runners[id(episode)] = (ToolRunner(episode, self.reset), threading.Lock())
            return self._runners[id(episode)]


def _params(model: type[P], params: Any) -> P:
    """``params`` read as ``model``; malformed ones are an invalid-params error naming why."""
    try:
        return model.model_validate(params if params is not None else {})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "params"
        raise MCPError(types.INVALID_PARAMS, f"invalid params: {where}: {first['msg']}") from None
