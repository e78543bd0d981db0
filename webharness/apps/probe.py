"""HTTP calls to an app on 127.0.0.1 (its readiness check, its reset): no proxy from the
environment, no redirect followed, so the status is what the app itself answered."""

from __future__ import annotations

import urllib.error
import urllib.request
from email.message import Message
from typing import IO, Any


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
        headers: Message, newurl: str,
    ) -> None:  # fmt: skip
        return None  # the 3xx comes back as an HTTPError with its status


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


def status_of(url: str, method: str = "GET", timeout_s: float = 5.0) -> int:
    """The status the app answers ``method url`` with.

    Raises:
        OSError: no answer (refused, reset, timed out).
    """
    request = urllib.request.Request(url, method=method, data=b"" if method != "GET" else None)
    try:
        with _OPENER.open(request, timeout=timeout_s) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        exc.close()
        return int(exc.code)


def expected(status: int, wanted: int | list[int]) -> bool:
    return status in wanted if isinstance(wanted, list) else status == wanted


def describe(wanted: Any) -> str:
    return " or ".join(map(str, wanted)) if isinstance(wanted, list) else str(wanted)
