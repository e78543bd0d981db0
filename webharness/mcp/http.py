"""Streamable HTTP on 127.0.0.1: each episode at its own path, ``/mcp/<token>``.

The token is unguessable (``secrets.token_urlsafe``); a path with a wrong token gets 404.
Each path's requests are answered by its ``StreamableHttpEndpoint`` (``jsonrpc_http.py``),
which refuses a foreign ``Origin`` or ``Host``.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST

from webharness.mcp.episodes import EpisodeConfig, McpEpisode, ServedEpisode
from webharness.mcp.jsonrpc_http import Receive, Send, StreamableHttpEndpoint, respond
from webharness.mcp.methods import EpisodeOf, McpMethods

HOST = "127.0.0.1"  # never another interface: the server drives a browser for whoever calls
PATH_PREFIX = "/mcp/"


MAX_SESSIONS = 16  # live sessions on one endpoint, each with a page of its own


class SessionEpisodes:
    """Each session on an endpoint plays episodes of its own, made from one config.

    So parallel clients never share a page. ``webharness_reset`` picks a session's task and
    seed.

    Args:
        config: what each session's first episode plays.
        max_sessions: how many sessions may be live at once.
    """

    def __init__(self, config: EpisodeConfig, max_sessions: int = MAX_SESSIONS) -> None:
        self.config, self.max_sessions = config, max_sessions
        self._episodes: dict[str | None, McpEpisode] = {}
        self._lock = threading.Lock()

    def __call__(self, session: str | None) -> McpEpisode:
        """The session's episode, made on its first call."""
        with self._lock:
            if session not in self._episodes:
                if len(self._episodes) >= self.max_sessions:
                    raise MCPError(
                        INVALID_REQUEST,
                        f"this endpoint has {self.max_sessions} live sessions, its most: end "
                        "one (an HTTP DELETE) before opening another",
                    )
                self._episodes[session] = McpEpisode(self.config)
            return self._episodes[session]

    def end(self, session: str) -> None:
        """The session was closed: close its episode's env."""
        with self._lock:
            episode = self._episodes.pop(session, None)
        if episode is not None:
            episode.close()

    def close(self) -> None:
        """Close every session's episode."""
        with self._lock:
            episodes, self._episodes = list(self._episodes.values()), {}
        for episode in episodes:
            episode.close()


@dataclass
class Endpoint:
    """One endpoint: its token and its HTTP transport; ``close`` lets its episodes go."""

    token: str
    transport: StreamableHttpEndpoint
    close: Callable[[], None]

    @property
    def path(self) -> str:
        """The endpoint's URL path."""
        return f"/mcp/{self.token}"


class EpisodeEndpoints:
    """The endpoints one HTTP server serves; add them before it starts."""

    def __init__(self) -> None:
        self._endpoints: dict[str, Endpoint] = {}

    def add(self, config: EpisodeConfig) -> Endpoint:
        """Serve ``config``'s task at a new path with an unguessable token.

        Each session on it plays episodes of its own (``SessionEpisodes``), and may call
        ``webharness_reset``.
        """
        sessions = SessionEpisodes(config)
        return self._add(sessions, reset=True, on_end=sessions.end, close=sessions.close)

    def add_episode(
        self, episode: ServedEpisode, on_session_end: Callable[[str], None] | None = None
    ) -> Endpoint:
        """Serve one episode, which every session on the path plays; no ``webharness_reset``.

        A runner's external agent plays it, and may reconnect.
        """
        on_end = on_session_end or (lambda session: None)
        return self._add(lambda _: episode, reset=False, on_end=on_end, close=episode.close)

    def _add(
        self,
        episode_of: EpisodeOf,
        reset: bool,
        on_end: Callable[[str], None],
        close: Callable[[], None],
    ) -> Endpoint:
        transport = StreamableHttpEndpoint(McpMethods(episode_of, reset=reset), on_end)
        endpoint = Endpoint(secrets.token_urlsafe(24), transport, close)
        self._endpoints[endpoint.token] = endpoint
        return endpoint

    def find(self, token: str) -> Endpoint | None:
        """The endpoint of ``token``, compared in constant time; None for a wrong one."""
        for known, endpoint in self._endpoints.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                return endpoint
        return None

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        """The ASGI app: each request to its token's endpoint, 404 for any other path."""
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        path = scope["path"]
        token = path.removeprefix(PATH_PREFIX) if path.startswith(PATH_PREFIX) else ""
        endpoint = self.find(token) if token else None
        if endpoint is None:
            await respond(send, 404, b"no MCP endpoint at this path")
            return
        await endpoint.transport(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """Start at once; at shutdown close every endpoint's episodes (their browsers)."""
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                for endpoint in self._endpoints.values():
                    await anyio.to_thread.run_sync(endpoint.close)
                await send({"type": "lifespan.shutdown.complete"})
                return


async def serve_http(
    endpoints: EpisodeEndpoints, port: int, on_ready: Callable[[int], None] | None = None
) -> None:
    """Serve ``endpoints`` on 127.0.0.1:``port`` (0: a free port) until cancelled.

    ``on_ready(port)`` is called with the port once the socket listens.
    """
    with _listening(port) as sock:
        if on_ready is not None:
            on_ready(sock.getsockname()[1])
        await _uvicorn(endpoints).serve(sockets=[sock])


class ServingThread:
    """Endpoints served on 127.0.0.1 from a thread of its own.

    For a caller that goes on with its work meanwhile: a runner playing an external agent's
    episode.

    Example:
        >>> serving = ServingThread(EpisodeEndpoints())
        >>> port = serving.start()
        >>> serving.stop()
    """

    def __init__(self, endpoints: EpisodeEndpoints) -> None:
        self.endpoints = endpoints
        self._server = _uvicorn(endpoints)
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> int:
        """Listen on a free port and serve from a daemon thread; returns the port."""
        self._sock = _listening(0)
        self._thread = threading.Thread(
            target=asyncio.run,
            args=(self._server.serve(sockets=[self._sock]),),
            name="webharness-mcp-http",
            daemon=True,
        )
        self._thread.start()
        return int(self._sock.getsockname()[1])

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop serving (the endpoints' episodes are closed) and wait for the thread."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout_s)
        if self._sock is not None:
            self._sock.close()


def _listening(port: int) -> socket.socket:
    """A TCP socket listening on 127.0.0.1:``port`` (0: a free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit it: a reply is not held back waiting for the
        # client's delayed ACK (Nagle's algorithm), which costs ~40 ms per call.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((HOST, port))
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


def _uvicorn(endpoints: EpisodeEndpoints) -> Any:
    """A uvicorn server of the endpoints, quiet but for warnings."""
    import uvicorn

    return uvicorn.Server(uvicorn.Config(endpoints, log_level="warning"))
