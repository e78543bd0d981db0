"""Streamable HTTP on 127.0.0.1: each episode at its own path, ``/mcp/<token>``.

The token is unguessable (``secrets.token_urlsafe``); a path with a wrong token gets 404.
Each path's requests are answered by its ``StreamableHttpEndpoint`` (``jsonrpc_http.py``),
which refuses a foreign ``Origin`` or ``Host``, in the thread of the request's connection
(``local_http.LocalServer``).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST

from webharness.local_http import LocalServer
from webharness.mcp.episodes import EpisodeConfig, McpEpisode, ServedEpisode
from webharness.mcp.jsonrpc_http import Reply, StreamableHttpEndpoint, body_of
from webharness.mcp.methods import McpMethods

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

    def end(self, session: str) -> McpEpisode | None:
        """The session was closed: close its episode's env; the episode, if it had one."""
        with self._lock:
            episode = self._episodes.pop(session, None)
        if episode is not None:
            episode.close()
        return episode

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
        methods = McpMethods(sessions, reset=True)

        def end(session: str) -> None:
            ended = sessions.end(session)
            if ended is not None:
                methods.forget(ended)  # a new session never gets this episode again

        return self._add(methods, on_end=end, close=sessions.close)

    def add_episode(
        self, episode: ServedEpisode, on_session_end: Callable[[str], None] | None = None
    ) -> Endpoint:
        """Serve one episode, which every session on the path plays; no ``webharness_reset``.

        A runner's external agent plays it, and may reconnect.
        """
        on_end = on_session_end or (lambda session: None)
        # Its tools and their lock stay while the endpoint does: a reconnecting session
        # must take turns with any call still running on the same episode.
        methods = McpMethods(lambda _: episode, reset=False)
        return self._add(methods, on_end=on_end, close=episode.close)

    def _add(
        self, methods: McpMethods, on_end: Callable[[str], None], close: Callable[[], None]
    ) -> Endpoint:
        transport = StreamableHttpEndpoint(methods, on_end)
        endpoint = Endpoint(secrets.token_urlsafe(24), transport, close)
        self._endpoints[endpoint.token] = endpoint
        return endpoint

    def find(self, token: str) -> Endpoint | None:
        """The endpoint of ``token``, compared in constant time; None for a wrong one."""
        for known, endpoint in self._endpoints.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                return endpoint
        return None

    def close(self) -> None:
        """Close every endpoint's episodes (their browsers)."""
        for endpoint in self._endpoints.values():
            endpoint.close()


class _Request(BaseHTTPRequestHandler):
    """One connection's requests, each answered by its token's endpoint (404 elsewhere)."""

    protocol_version = "HTTP/1.1"  # keep-alive: an agent's calls share one connection
    server: _Server

    def _answer(self) -> None:
        headers = {key.lower(): value for key, value in self.headers.items()}
        token = self.path.removeprefix(PATH_PREFIX) if self.path.startswith(PATH_PREFIX) else ""
        endpoint = self.server.endpoints.find(token) if token else None
        bodies: list[bytes] = []

        def read_body() -> bytes:
            bodies.append(body_of(headers, self.rfile.read))
            return bodies[0]

        if endpoint is None:
            reply = Reply(404, b"no MCP endpoint at this path")
        else:
            reply = endpoint.transport.handle(self.command, headers, read_body)
        has_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
        if has_body and not bodies:  # refused unread (or drained): not a next request's start
            self.close_connection = True
        self._send(reply)

    def _send(self, reply: Reply) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        for name, value in reply.headers:
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(reply.body)

    do_POST = do_GET = do_DELETE = do_PUT = do_PATCH = do_OPTIONS = _answer  # noqa: N815

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # each episode's trace records its calls


class _Server(LocalServer):
    def __init__(self, endpoints: EpisodeEndpoints, port: int) -> None:
        self.endpoints = endpoints
        super().__init__(_Request, port)


class ServingThread:
    """Endpoints served on 127.0.0.1 from a thread of its own.

    For a caller that goes on with its work meanwhile: a runner playing an external agent's
    episode.

    Example:
        >>> serving = ServingThread(EpisodeEndpoints())
        >>> port = serving.start()
        >>> serving.stop()
    """

    def __init__(self, endpoints: EpisodeEndpoints, port: int = 0) -> None:
        self.endpoints = endpoints
        self._server = _Server(endpoints, port)

    def start(self) -> int:
        """Serve from a daemon thread; returns the port."""
        return self._server.start()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop serving, wait for calls in flight, and close the endpoints' episodes."""
        try:
            self._server.stop(timeout_s)
        finally:
            self.endpoints.close()


def serve_http(
    endpoints: EpisodeEndpoints, port: int, on_ready: Callable[[int], None] | None = None
) -> None:
    """Serve ``endpoints`` on 127.0.0.1:``port`` (0: a free port) until interrupted.

    At ``KeyboardInterrupt`` their episodes are closed. ``on_ready(port)`` is called with
    the port once the socket listens.
    """
    serving = ServingThread(endpoints, port)
    try:
        if on_ready is not None:
            on_ready(serving.start())
        threading.Event().wait()
    finally:
        serving.stop()
