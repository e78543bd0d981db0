"""Streamable HTTP on 127.0.0.1: each episode at its own path, ``/mcp/<token>``.

The token is unguessable (``secrets.token_urlsafe``); requests with a foreign ``Origin``
or ``Host`` are refused (DNS-rebinding protection, the SDK's), a path with a wrong token
gets 404.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from webharness.mcp.episodes import McpEpisode
from webharness.mcp.server import build_server

HOST = "127.0.0.1"  # never another interface: the server drives a browser for whoever calls
SECURITY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
)


@dataclass
class Endpoint:
    """One episode's endpoint: its token, its episode and the SDK's session manager."""

    token: str
    episode: McpEpisode
    manager: StreamableHTTPSessionManager

    @property
    def path(self) -> str:
        """The endpoint's URL path."""
        return f"/mcp/{self.token}"


class EpisodeEndpoints:
    """The episode endpoints one HTTP server serves; add them before it starts."""

    def __init__(self) -> None:
        self._endpoints: dict[str, Endpoint] = {}

    def add(self, episode: McpEpisode) -> Endpoint:
        """Serve ``episode`` at a new path with an unguessable token.

        Each new session on it after the first starts a new episode.
        """
        server = build_server(episode, reset=False, new_session_resets=True)
        manager = StreamableHTTPSessionManager(app=server, security_settings=SECURITY)
        endpoint = Endpoint(secrets.token_urlsafe(24), episode, manager)
        self._endpoints[endpoint.token] = endpoint
        return endpoint

    def find(self, token: str) -> Endpoint | None:
        """The endpoint of ``token``, compared in constant time; None for a wrong one."""
        for known, endpoint in self._endpoints.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                return endpoint
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand a request to its token's session manager; 404 for a path with a wrong token."""
        endpoint = self.find(scope.get("path_params", {}).get("token", ""))
        if endpoint is None:
            response = PlainTextResponse("no MCP endpoint at this path", status_code=404)
            await response(scope, receive, send)
            return
        await endpoint.manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def running(self, app: Any) -> AsyncIterator[None]:
        """Run every endpoint's session manager; close the episodes' browsers at the end."""
        async with contextlib.AsyncExitStack() as stack:
            for endpoint in self._endpoints.values():
                await stack.enter_async_context(endpoint.manager.run())
            try:
                yield
            finally:
                for endpoint in self._endpoints.values():
                    await anyio.to_thread.run_sync(endpoint.episode.close)

    def app(self) -> Starlette:
        """The ASGI app serving the endpoints."""
        route = Route("/mcp/{token}", self, methods=["GET", "POST", "DELETE"])
        return Starlette(routes=[route], lifespan=self.running)


async def serve_http(
    endpoints: EpisodeEndpoints, port: int, on_ready: Callable[[int], None] | None = None
) -> None:
    """Serve ``endpoints`` on 127.0.0.1:``port`` (0: a free port) until cancelled.

    ``on_ready(port)`` is called with the port once the socket listens.
    """
    import uvicorn

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen()
        if on_ready is not None:
            on_ready(sock.getsockname()[1])
        config = uvicorn.Config(endpoints.app(), log_level="warning")
        await uvicorn.Server(config).serve(sockets=[sock])
