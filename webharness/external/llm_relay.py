"""The LLM proxy's HTTP side: one request forwarded to the upstream, its answer relayed.

``ProxyServer`` is a stdlib ``ThreadingHTTPServer`` on 127.0.0.1 (a thread a connection).
A request for ``/<token>/<suffix>?<query>`` is sent to ``<upstream><suffix>?<query>`` with
its method, headers and body unchanged but for the hop-by-hop headers (dropped) and
``Host`` (the upstream's). The answer goes back as it comes: its status, its end-to-end
headers, and its body chunk by chunk (re-chunked when the upstream gave no length), while a
``UsageReader`` reads the usage out of it for the token's counter.

No header value is ever put in a log line or an error: an upstream that cannot be reached
is named by its URL and the socket's error (``Connection refused``), nothing more.
"""

from __future__ import annotations

import json
import logging
import socket
import sys
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from http.client import HTTPConnection, HTTPException, HTTPResponse, HTTPSConnection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import urlsplit

from webharness.agents.base import TokenUsage
from webharness.external.llm_usage import UsageReader

logger = logging.getLogger("webharness.external.llm_proxy")

CONNECT_TIMEOUT_S = 10.0  # the longest a connection to the upstream may take to open
CHUNK_BYTES = 64 * 1024
# Headers of one connection, not of the message (RFC 9110 7.6.1), each side of the proxy
# setting its own; Expect, which this side answers itself; Host, the upstream's.
NOT_FORWARDED = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "expect",
        "host",
    }
)


class Counter(Protocol):
    """What the relay counts into: a ``Meter``."""

    def count_request(self, body: bytes) -> None: ...

    def count_answer(self, succeeded: bool, usage: TokenUsage | None) -> None: ...


@dataclass(frozen=True)
class Target:
    """The upstream, split for ``http.client``."""

    url: str
    https: bool
    host: str
    port: int | None
    path: str
    read_timeout_s: float

    @classmethod
    def of(cls, url: str, read_timeout_s: float) -> Target:
        parts = urlsplit(url)
        host = parts.hostname or ""
        return cls(url, parts.scheme == "https", host, parts.port, parts.path, read_timeout_s)

    @property
    def netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port is None else f"{host}:{self.port}"

    def connection(self) -> HTTPConnection:
        kind = HTTPSConnection if self.https else HTTPConnection
        return kind(self.host, self.port, timeout=CONNECT_TIMEOUT_S)


class ProxyServer(ThreadingHTTPServer):
    """Serves the proxy's requests, each connection in a daemon thread it can end.

    Args:
        target: the upstream.
        counter_of: the counter of a path's token, or None for a token it does not know.
    """

    daemon_threads = True

    def __init__(self, target: Target, counter_of: Callable[[str], Counter | None]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.target = target
        self.counter_of = counter_of
        self._lock = threading.Lock()
        self._clients: dict[socket.socket, threading.Thread] = {}
        self._upstreams: set[HTTPConnection] = set()

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve,
            args=(request, client_address),
            name="webharness-llm-proxy-connection",
            daemon=True,
        )
        with self._lock:
            self._clients[request] = thread
        thread.start()

    def _serve(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._clients.pop(request, None)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Not socketserver's traceback on stderr: an exception's text could quote a header.
        logger.debug("LLM proxy: a connection failed (%s)", sys.exc_info()[0])

    def track(self, upstream: HTTPConnection, opened: bool) -> None:
        """Note an upstream connection in use (``opened``) or done with, for ``close``."""
        with self._lock:
            (self._upstreams.add if opened else self._upstreams.discard)(upstream)

    def drop_connections(self, timeout_s: float = CONNECT_TIMEOUT_S + 5) -> None:
        """End every client and upstream connection, and wait for their threads."""
        with self._lock:
            clients = dict(self._clients)
            sockets = [*clients, *(c.sock for c in self._upstreams if c.sock is not None)]
        for sock in sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in clients.values():
            thread.join(timeout_s)


class _Handler(BaseHTTPRequestHandler):
    """Forwards one request of a client connection (kept alive between requests)."""

    server: ProxyServer
    protocol_version = "HTTP/1.1"
    # Each chunk goes out at once: with Nagle's algorithm a small write waits for the
    # client's delayed ACK of the one before (40 ms an answer, measured).
    disable_nagle_algorithm = True

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        path, _, query = self.path.partition("?")
        token, _, suffix = path.lstrip("/").partition("/")
        counter = self.server.counter_of(token)
        if counter is None:
            self._fail(
                404,
                "no LLM meter at this path: the episode's meter is closed, or "
                "this is not the URL its OPENAI_BASE_URL gave",
            )
            return
        body = self._body()
        if body is None:
            return
        url = (self.server.target.path + ("/" + suffix if suffix else "")) or "/"
        url += "?" + query if query else ""
        if self.command != "POST":
            self._forward(url, body)
            return
        counter.count_request(body)
        succeeded, usage = False, None
        try:
            succeeded, usage = self._forward(url, body)
        finally:
            counter.count_answer(succeeded, usage)

    do_GET = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_POST

    def _body(self) -> bytes | None:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self._fail(411, "the LLM proxy takes request bodies with a Content-Length")
            return None
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self._fail(400, "the request's Content-Length is not a length")
            return None
        return self.rfile.read(length)

    def _forward(self, url: str, body: bytes) -> tuple[bool, TokenUsage | None]:
        """Send the request upstream and relay the answer.

        Returns:
            Whether the upstream answered with success (2xx), and the usage the answer
            reported (None when it reported none).
        """
        upstream = self.server.target.connection()
        self.server.track(upstream, opened=True)
        try:
            try:
                response = self._send(upstream, url, body)
            except ValueError:  # a header http.client refuses to send: never quote it
                self._fail(400, "a header of the request cannot be forwarded as it is")
                return False, None
            except (OSError, HTTPException) as exc:
                self._fail(502, self._unreachable(exc))
                return False, None
            usage = self._relay(response)
            logger.debug(
                "%s %s -> %d (%s)", self.command, url.partition("?")[0], response.status, usage
            )
            return 200 <= response.status < 300, usage
        finally:
            self.server.track(upstream, opened=False)
            upstream.close()

    def _send(self, upstream: HTTPConnection, url: str, body: bytes) -> HTTPResponse:
        target = self.server.target
        upstream.connect()
        if upstream.sock is not None:
            upstream.sock.settimeout(target.read_timeout_s)
        upstream.putrequest(self.command, url, skip_host=True, skip_accept_encoding=True)
        upstream.putheader("Host", target.netloc)
        for name, value in _end_to_end(self.headers.items()):
            upstream.putheader(name, value)
        upstream.endheaders(body or None)
        return upstream.getresponse()

    def _relay(self, response: HTTPResponse) -> TokenUsage | None:
        """Relay the answer to the client as it comes; the usage read on the way, if any."""
        has_body = self.command != "HEAD" and response.status not in (204, 304)
        rechunk = has_body and (response.chunked or response.length is None)
        reader = UsageReader(
            response.getheader("Content-Type", ""), response.getheader("Content-Encoding", "")
        )
        try:
            self._send_head(response, rechunk)
            while has_body and (chunk := response.read1(CHUNK_BYTES)):
                reader.feed(chunk)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if rechunk else chunk)
            if rechunk:
                self.wfile.write(b"0\r\n\r\n")
        except (OSError, HTTPException) as exc:  # either side went away mid-answer
            logger.debug(
                "an answer of %s ended early (%s)", self.server.target.url, type(exc).__name__
            )
            self.close_connection = True
            return None
        return reader.finish() if has_body else None

    def _send_head(self, response: HTTPResponse, rechunk: bool) -> None:
        """The upstream's status and end-to-end headers (chunked, when ``rechunk``)."""
        self.send_response_only(response.status, response.reason)
        for name, value in _end_to_end(response.getheaders()):
            if not (rechunk and name.lower() == "content-length"):
                self.send_header(name, value)
        if rechunk:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _unreachable(self, exc: BaseException) -> str:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        message = (
            f"no answer from the LLM upstream {self.server.target.url} ({reason}): "
            "check that it runs and that the URL given to the proxy is right"
        )
        logger.warning("%s", message)
        return message

    def _fail(self, status: int, message: str) -> None:
        """Answer with an OpenAI-style JSON error, and close the connection."""
        body = json.dumps({"error": {"message": message, "type": "llm_proxy_error"}}).encode()
        self.close_connection = True
        self.send_response_only(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        # http.server's own lines (a malformed request) name no header value.
        logger.debug("LLM proxy: " + format, *args)


def _end_to_end(headers: Any) -> list[tuple[str, str]]:
    """The headers a proxy passes on: all but the hop-by-hop ones and those ``Connection``
    names."""
    pairs = list(headers)
    named = {
        token.strip().lower()
        for name, value in pairs
        if name.lower() == "connection"
        for token in value.split(",")
    }
    return [(n, v) for n, v in pairs if n.lower() not in NOT_FORWARDED and n.lower() not in named]
