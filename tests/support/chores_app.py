"""The chores app: a small multi-page app of the suite's own, served from 127.0.0.1 by
``http.server``, to test tasks on an app that webharness does not serve itself.

Its pages (``tests/fixtures/chores_app``) keep the open chores in ``localStorage`` and
save asynchronously; its JSON API keeps each board's archive (the ``board`` cookie) and
has the endpoints a task's setup calls: ``POST /api/reset`` and ``POST /api/fixture``.
Its styles, logo and font come from a second origin, the assets server.

Run it by hand (the tutorial, docs/your-own-app.md, does):
``python -m tests.support.chores_app --port 8000 --assets-port 8001``.
"""

from __future__ import annotations

import argparse
import http.server
import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "chores_app"
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
TYPES |= {".svg": "image/svg+xml", ".woff2": "font/woff2"}
FONT = b"wOF2" + bytes(60)  # not a real font: only the request matters


class Boards:
    """Each board's archive of done chores, shared by the server's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._archives: dict[str, list[str]] = {}

    def reset(self, board: str) -> None:
        with self._lock:
            self._archives[board] = []

    def fill(self, board: str, archive: list[str]) -> int:
        with self._lock:
            self._archives[board] = list(archive)
            return len(archive)

    def add(self, board: str, title: str) -> None:
        with self._lock:
            self._archives.setdefault(board, []).append(title)

    def archive(self, board: str) -> list[str]:
        with self._lock:
            return list(self._archives.get(board, []))


class _App(http.server.BaseHTTPRequestHandler):
    boards: Boards
    assets: str  # the assets server's origin, written into the pages
    log_requests = False

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?")[0]
        if path == "/api/archive":
            self._json(200, {"archive": self.boards.archive(self._board())})
            return
        name = "index.html" if path == "/" else path.lstrip("/")
        file = PAGES / name
        if name not in ("index.html", "chore.html", "archive.html", "app.js"):
            self._send(404, b"not found", "text/plain")
            return
        body = file.read_text(encoding="utf-8").replace("%ASSETS%", self.assets)
        self._send(200, body.encode(), TYPES[file.suffix])

    def do_POST(self) -> None:  # noqa: N802
        data = self._body()
        if self.path == "/api/reset" and isinstance(data.get("board"), int):
            self.boards.reset(str(data["board"]))
            self._json(200, {"ok": True})
        elif self.path == "/api/fixture" and isinstance(data.get("archive"), list):
            count = self.boards.fill(str(data.get("board")), [str(t) for t in data["archive"]])
            self._json(200, {"ok": True, "count": count})
        elif self.path == "/api/archive" and isinstance(data.get("title"), str):
            self.boards.add(self._board(), data["title"])
            self._json(200, {"ok": True})
        elif self.path == "/api/broken":
            self._json(500, {"error": "the fixture database is down"})
        else:
            self._json(400, {"error": f"bad request to {self.path}"})

    def _board(self) -> str:
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        return cookie["board"].value if "board" in cookie else ""

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            data = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def _json(self, status: int, body: Any) -> None:
        self._send(status, json.dumps(body).encode(), "application/json")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        if self.log_requests:  # "POST /api/reset 200", for a test to read who called what
            print(f"{self.command} {self.path} {args[1] if len(args) > 1 else ''}", flush=True)


class _Assets(http.server.BaseHTTPRequestHandler):
    """Static files of another origin: a stylesheet, a logo, a font, a script."""

    def do_GET(self) -> None:  # noqa: N802
        name = self.path.split("?")[0].lstrip("/")
        if name == "font.woff2":
            body, kind = FONT, TYPES[".woff2"]
        elif name in ("style.css", "logo.svg", "widget.js"):
            body, kind = (PAGES / name).read_bytes(), TYPES[Path(name).suffix]
        else:
            body, kind = b"not found", "text/plain"
        self.send_response(200 if kind != "text/plain" else 404)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # noqa: N802 (an "API" of the assets origin: never reached)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@dataclass
class ChoresApp:
    """A running app: its origin, its assets' origin, its boards."""

    url: str
    assets: str
    boards: Boards

    @property
    def variables(self) -> dict[str, str]:
        """The task folder's ``${NAME}`` variables for this app."""
        return {"CHORES_URL": self.url, "CHORES_ASSETS": self.assets}


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that drops a connection it no longer needs (a page left mid-load)
        is not an error of the app's."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serving(port: int = 0, assets_port: int = 0, log_requests: bool = False) -> Iterator[ChoresApp]:
    """Serve the app and its assets on 127.0.0.1 (free ports by default) until the block
    ends; ``log_requests`` prints each request the app serves to stdout."""
    assets = _Server(("127.0.0.1", assets_port), _Assets)
    assets_url = f"http://127.0.0.1:{assets.server_address[1]}"
    boards = Boards()
    fields = {"boards": boards, "assets": assets_url, "log_requests": log_requests}
    handler = type("App", (_App,), fields)
    app = _Server(("127.0.0.1", port), handler)
    servers = (app, assets)
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield ChoresApp(f"http://127.0.0.1:{app.server_address[1]}", assets_url, boards)
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description="serve the chores app on 127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--assets-port", type=int, default=8001)
    parser.add_argument("--log-requests", action="store_true", help="print each request")
    args = parser.parse_args()
    with serving(args.port, args.assets_port, args.log_requests) as app:
        print(f"CHORES_URL={app.url} CHORES_ASSETS={app.assets}  (Ctrl-C stops it)", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
