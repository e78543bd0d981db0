"""Two real servers on 127.0.0.1 for the egress tests: ``App``, the task's allowed origin
(the hostile page and a redirect to anywhere), and ``Witness``, the origin no request may
reach, which logs every TCP connection it accepts and every UDP datagram on its port."""

from __future__ import annotations

import http.server
import socket
import threading
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

SITE = Path(__file__).parent / "egress_site"
TYPES = {".html": "text/html", ".js": "text/javascript"}


class Witness:
    """Listens on one port for TCP and UDP; ``seen`` is everything that arrived."""

    def __init__(self) -> None:
        self._tcp = socket.create_server(("127.0.0.1", 0))
        self.port = self._tcp.getsockname()[1]
        self._udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._udp.bind(("127.0.0.1", self.port))
        self.seen: list[str] = []
        self._closed = threading.Event()
        for target in (self._accept, self._receive):
            threading.Thread(target=target, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                connection, _ = self._tcp.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(2)
                try:
                    first = connection.recv(200).split(b"\r\n", 1)[0]
                except OSError:
                    first = b""
                self.seen.append(f"tcp: {first.decode('latin-1')}")
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nSECRET")

    def _receive(self) -> None:
        while not self._closed.is_set():
            try:
                data, _ = self._udp.recvfrom(2048)
            except OSError:
                return
            self.seen.append(f"udp: {len(data)} bytes")

    def close(self) -> None:
        self._closed.set()
        self._tcp.close()
        self._udp.close()


class App:
    """An allowed origin: the files of ``egress_site/`` (the hostile page is
    ``/index.html?b=<the witness's origin>``), and ``/redirect?to=URL``, a 302 to anywhere."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                hits.append(self.path)
                url = urlsplit(self.path)
                to = parse_qs(url.query).get("to", [""])[0]
                file = SITE / url.path.lstrip("/")
                if url.path == "/redirect":
                    self._answer(302, b"", "text/plain", Location=to)
                elif file.suffix in TYPES and file.is_file():
                    self._answer(200, file.read_bytes(), TYPES[file.suffix])
                else:
                    self._answer(404, b"Not found", "text/plain")

            do_POST = do_GET  # noqa: N815

            def _answer(self, status: int, body: bytes, kind: str, **headers: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
