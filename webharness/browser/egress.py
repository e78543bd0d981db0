"""The one way out of a browser context: a forward proxy on 127.0.0.1 that checks every
request against the episode's allowed origins.

The context's routes (``browser/site.py``) see the requests a page makes, but not all of
them: Chromium follows a redirect without asking the route again, and beacons sent while a
page unloads, shared workers, speculative loads and WebRTC's TCP relays never reach it.
Every one of those still leaves through the context's proxy, so this is where they are
refused and recorded. Playwright proxies loopback addresses too (``<-loopback>``), and
Chromium is launched with WebRTC's non-proxied UDP turned off (``browser/host.py``).

An allowed request is passed on unchanged, one request per connection (so a kept-alive
connection cannot carry a second request to another host); a CONNECT tunnel (HTTPS, WSS,
a TURN relay) is allowed by host and port.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from urllib.parse import urlsplit

from webharness.origins import origin_of

# Longest request head we read; a browser's is a few KB.
_MAX_HEAD = 64 * 1024
_HEAD_TIMEOUT_S = 30.0
# Hop-by-hop headers a proxy must not pass on (RFC 9110 7.6.1); we add Connection: close.
_HOP_BY_HOP = {
    b"connection",
    b"keep-alive",
    b"proxy-connection",
    b"proxy-authorization",
    b"te",
    b"trailer",
    b"upgrade",
}
_REFUSAL = b"blocked by webharness: this origin is not allowed in the task"
_REFUSED = (
    b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
    + b"Content-Length: %d\r\n\r\n" % len(_REFUSAL)
    + _REFUSAL
)

AllowsOrigin = Callable[[str], bool]  # "http://host:port" -> may the page reach it?
Record = Callable[[str], None]


class EgressProxy:
    """A context's proxy: ``allows`` decides, ``record`` notes what was refused."""

    def __init__(self, allows: AllowsOrigin, record: Record, owner: set[EgressProxy]) -> None:
        self._allows, self._record, self._owner = allows, record, owner
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()

    async def start(self) -> str:
        """Listen on a free port of 127.0.0.1; returns the proxy's URL for the context."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self._owner.add(self)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def close(self) -> None:
        """Stop listening and cut every connection still open (the context is gone)."""
        self._owner.discard(self)
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._open):
            writer.close()
        self._open.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._open.add(writer)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT_S)
            if len(head) > _MAX_HEAD:
                return
            method, target, version = head.split(b"\r\n", 1)[0].split(b" ", 2)
            if method == b"CONNECT":
                await self._tunnel(target.decode("latin-1"), reader, writer)
            else:
                await self._forward(head, target.decode("latin-1"), reader, writer)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError):
            pass  # the browser gave up on the request, or sent something we do not serve
        except (ConnectionError, OSError, ValueError):
            pass
        finally:
            self._open.discard(writer)
            writer.close()

    async def _tunnel(
        self, authority: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        host, _, port = authority.rpartition(":")
        allowed = any(
            self._allows(f"{scheme}://{_netloc(host, int(port), scheme)}")
            for scheme in ("https", "http")
        )
        if not allowed:
            self._record(f"{authority} [egress: tunnel]")
            writer.write(_REFUSED)
            return
        upstream_reader, upstream_writer = await asyncio.open_connection(host.strip("[]"), port)
        writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        await _pipe_both(reader, writer, upstream_reader, upstream_writer)

    async def _forward(
        self,
        head: bytes,
        url: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname or not self._allows(origin_of(url)):
            self._record(f"{url} [egress: {_kind(head)}]")
            writer.write(_REFUSED)
            return
        upstream_reader, upstream_writer = await asyncio.open_connection(
            parts.hostname, parts.port or 80
        )
        upstream_writer.write(_origin_form(head, parts.path or "/", parts.query))
        await _pipe_both(reader, writer, upstream_reader, upstream_writer)


def _netloc(host: str, port: int, scheme: str) -> str:
    default = {"http": 80, "https": 443}[scheme]
    return host if port == default else f"{host}:{port}"


def _kind(head: bytes) -> str:
    """What the browser meant the request for, from its Fetch Metadata headers (sent to
    trustworthy origins, which loopback is): ``request`` when there are none. The request
    came past the context's routes: a redirect hop, a beacon, a worker or a speculative load."""
    fields = _headers(head)
    dest = fields.get(b"sec-fetch-dest", b"").decode("latin-1") or "request"
    dest = "fetch" if dest == "empty" else dest  # fetch, XHR, beacons and EventSource
    purpose = fields.get(b"sec-purpose", fields.get(b"purpose", b"")).decode("latin-1")
    return f"{dest}, {purpose}" if purpose else dest


def _headers(head: bytes) -> dict[bytes, bytes]:
    fields = {}
    for line in head.split(b"\r\n")[1:]:
        name, sep, value = line.partition(b":")
        if sep:
            fields[name.strip().lower()] = value.strip()
    return fields


def _origin_form(head: bytes, path: str, query: str) -> bytes:
    """The request as the server expects it: its path instead of the full URL, without the
    proxy's hop-by-hop headers, and asking the server to close after its answer."""
    request_line, *lines = head.rstrip(b"\r\n").split(b"\r\n")
    method, _, version = request_line.split(b" ", 2)
    target = (path + ("?" + query if query else "")).encode("latin-1")
    kept = [line for line in lines if line.partition(b":")[0].strip().lower() not in _HOP_BY_HOP]
    return b"\r\n".join([b" ".join((method, target, version)), *kept, b"Connection: close"]) + (
        b"\r\n\r\n"
    )


async def _pipe_both(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    upstream_reader: asyncio.StreamReader,
    upstream_writer: asyncio.StreamWriter,
) -> None:
    """Copy both ways until either side closes, then close both."""
    copies = [
        asyncio.ensure_future(_copy(reader, upstream_writer)),
        asyncio.ensure_future(_copy(upstream_reader, writer)),
    ]
    try:
        await asyncio.wait(copies, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for copy in copies:
            copy.cancel()
        upstream_writer.close()
        with contextlib.suppress(Exception):
            await writer.drain()


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
