"""The harness's own HTTP servers (the MCP door, the simulated user): HTTP/1.1 on 127.0.0.1,
each connection in a thread of its own (the standard library's ``http.server``).

A connection's thread answers its requests itself, so a request that steps an env is
stepped in the thread that read it, with no hand-over to another thread and back: that is
the MCP door's speed (``benchmarks/bench_mcp.py``). ``stop`` ends the open keep-alive
connections, then waits for the requests in flight, so nothing is left running.
"""

from __future__ import annotations

import logging
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOST = "127.0.0.1"  # never another interface: these servers act for whoever calls them
log = logging.getLogger(__name__)


class LocalServer(ThreadingHTTPServer):
    """A threaded HTTP server listening on 127.0.0.1:``port`` (0: a free port).

    Example:
        >>> server = LocalServer(BaseHTTPRequestHandler)
        >>> port = server.start()
        >>> server.stop()
    """

    daemon_threads = False  # joined by ``stop``: a request in flight finishes
    block_on_close = True
    # Connections waiting to be accepted (the standard library's default is 5): parallel
    # clients open several at once, and a full queue makes the kernel drop their SYNs.
    request_queue_size = 128

    def __init__(self, handler: type[BaseHTTPRequestHandler], port: int = 0) -> None:
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        super().__init__((HOST, port), handler)

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.server_address[1])

    def server_bind(self) -> None:
        """Bind with Nagle's algorithm off (accepted connections inherit it): a reply is
        not held back for the client's delayed ACK, which costs ~40 ms a call."""
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().server_bind()

    def start(self) -> int:
        """Serve from a thread of its own; returns the port."""
        self._thread = threading.Thread(
            target=self.serve_forever, name=f"webharness-http-{self.port}", daemon=True
        )
        self._thread.start()
        return self.port

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop accepting, end the idle connections, and wait for requests in flight."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout_s)
        with self._lock:
            connections = list(self._connections)
        for connection in connections:  # a thread waiting for the next request reads EOF
            try:
                connection.shutdown(socket.SHUT_RD)
            except OSError:  # already closed by its client
                pass
        self.server_close()  # joins the connections' threads

    def process_request(self, request: Any, client_address: Any) -> None:
        """Keep each connection until its thread ends, so that ``stop`` can end it."""
        with self._lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request whose handling raised: logged with its traceback, as a bug of ours
        (its connection is closed, so its client sees the connection end)."""
        log.exception("webharness: a request from %s failed", client_address)

    def shutdown_request(self, request: Any) -> None:
        """The connection's thread is done with it."""
        with self._lock:
            self._connections.discard(request)
        super().shutdown_request(request)
