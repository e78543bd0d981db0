"""HTTP servers on 127.0.0.1 for tests: one answering with a handler of the test's own,
or static files from a folder (a second origin for a page's frames)."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files and logs nothing (a test's output is not the server's log)."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serving_with(handler: Any) -> Iterator[str]:
    """A server on a free port of 127.0.0.1 answering with ``handler`` (a request handler
    class), until the block ends; its origin."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serving(folder: Path, count: int = 1) -> Iterator[list[str]]:
    """``count`` servers of ``folder`` on free ports of 127.0.0.1, until the block ends;
    their origins."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    with ExitStack() as stack:
        yield [stack.enter_context(serving_with(handler)) for _ in range(count)]
