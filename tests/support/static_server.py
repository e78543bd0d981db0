"""Static files served on 127.0.0.1 from a folder (a second origin for a page's frames)."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serving(folder: Path, count: int = 1) -> Iterator[list[str]]:
    """``count`` servers of ``folder`` on free ports of 127.0.0.1, until the block ends;
    their origins."""
    servers = []
    try:
        for _ in range(count):
            handler = functools.partial(_Quiet, directory=str(folder))
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            servers.append(server)
        yield [f"http://127.0.0.1:{s.server_address[1]}" for s in servers]
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
