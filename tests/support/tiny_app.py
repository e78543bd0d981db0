"""A tiny app with server state for the app lifecycle tests: not ready (503) until
``--ready-after`` seconds have passed, ``POST /reset`` counts resets in ``<data-dir>/resets``
(``POST /fail`` answers 500), ``GET /files`` lists its data folder.

    python -m tests.support.tiny_app --port 8000 --data-dir /tmp/tiny
"""

from __future__ import annotations

import argparse
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--ready-after", type=float, default=0.0)
    args = parser.parse_args()
    ready_at = time.monotonic() + args.ready_after
    resets = args.data_dir / "resets"

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path == "/ready":
                ready = time.monotonic() >= ready_at
                self._answer(200 if ready else 503, {"ready": ready})
            elif self.path == "/files":
                self._answer(200, sorted(p.name for p in args.data_dir.iterdir()))
            else:
                self._answer(404, {})

        def do_POST(self) -> None:  # noqa: N802
            if self.path == "/reset":
                count = int(resets.read_text()) + 1 if resets.exists() else 1
                resets.write_text(str(count))
                self._answer(200, {"resets": count})
            else:
                self._answer(500, {"error": "no such call"})

        def log_message(self, format: str, *args: object) -> None:
            print(f"{self.command} {self.path}", flush=True)

    print(f"tiny app on port {args.port}", flush=True)
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
