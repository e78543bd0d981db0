"""A local OpenAI-compatible proxy that counts each episode's LLM tokens.

An external agent calls its model through an OpenAI-compatible client. Pointing that
client's ``OPENAI_BASE_URL`` at a ``Meter`` of an ``LlmProxy`` sends every request through
the proxy, which forwards it unchanged to the real upstream (method, path suffix, query,
headers and body; only the hop-by-hop headers are dropped and ``Host`` names the upstream),
relays the answer as it comes (a stream chunk by chunk), and reads the usage on the way
(``webharness.external.llm_usage``). Each meter has its own unguessable path, so the
episodes of a run are counted apart; a closed meter's path answers 404.

The proxy holds no key: the client's ``Authorization`` header passes through, and no header
value is written to a log, an error message or a report. An upstream that cannot be
reached gives the client a 502 whose JSON error names the upstream.

A streamed chat completion reports its usage only when the request asked for it with
``stream_options={"include_usage": True}``; the proxy does not add it (it forwards requests
unchanged), so such a stream counts in ``Meter.uncounted`` instead of in ``Meter.usage``.

Example:
    >>> with LlmProxy("http://127.0.0.1:8000/v1") as proxy, proxy.meter() as meter:
    ...     meter.base_url.startswith(proxy.url + "/")
    True
"""

from __future__ import annotations

import functools
import json
import logging
import secrets
import threading
from collections.abc import Callable
from types import TracebackType
from urllib.parse import urlsplit

from webharness.agents.base import TokenUsage
from webharness.errors import ConfigError, RunError
from webharness.external.llm_relay import ProxyServer, Target

logger = logging.getLogger(__name__)

UPSTREAM_EXAMPLE = "http://127.0.0.1:8000/v1 or https://api.openai.com/v1"


class Meter:
    """One episode's door to the upstream, and the tokens spent through it.

    Counts are safe to read while requests run (several may run at once), and final once
    ``close()`` has returned True: an answer is counted when the proxy has relayed all of
    it, which can be a moment after the client has read its last byte. Only ``POST``
    requests are counted (the model calls); other methods pass through uncounted.

    Attributes:
        base_url: the agent's ``OPENAI_BASE_URL``: ``http://127.0.0.1:PORT/<token>``.
            ``<base_url>/chat/completions`` is forwarded to ``<upstream>/chat/completions``.
    """

    def __init__(self, base_url: str, on_close: Callable[[], None]) -> None:
        self.base_url = base_url
        self._on_close = on_close
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._in_flight = 0
        self._usage = TokenUsage()
        self._requests = 0
        self._uncounted = 0
        self._models: list[str] = []

    @property
    def usage(self) -> TokenUsage:
        """The prompt and completion tokens the upstream reported, summed over requests."""
        with self._lock:
            return self._usage.model_copy()

    @property
    def requests(self) -> int:
        """The ``POST`` requests forwarded (or tried: an unreachable upstream counts too)."""
        with self._lock:
            return self._requests

    @property
    def uncounted(self) -> int:
        """Successful (2xx) answers whose usage could not be read, so are not in ``usage``.

        A stream that was not asked for its usage (no ``stream_options={"include_usage":
        True}``), a stream the client left before its end, or a body in an encoding the
        proxy does not read (``br``, ``zstd``). Their tokens were spent but are not known.
        """
        with self._lock:
            return self._uncounted

    @property
    def in_flight(self) -> int:
        """The requests being forwarded or answered now (their counts are not in yet)."""
        with self._lock:
            return self._in_flight

    @property
    def models(self) -> tuple[str, ...]:
        """The models the requests named (their JSON ``model``), in the order first seen."""
        with self._lock:
            return tuple(self._models)

    def count_request(self, body: bytes) -> None:
        """Count a request about to be forwarded, noting the model its JSON body names."""
        model = _model_of(body)
        with self._lock:
            self._requests += 1
            self._in_flight += 1
            if model is not None and model not in self._models:
                self._models.append(model)

    def count_answer(self, succeeded: bool, usage: TokenUsage | None) -> None:
        """End a counted request, adding its answer's usage if it succeeded (2xx).

        A success with no usage counts as uncounted; a failure (an error status, no
        answer) adds nothing.
        """
        with self._lock:
            self._in_flight -= 1
            self._idle.notify_all()
            if not succeeded:
                return
            if usage is None:
                self._uncounted += 1
                return
            self._usage = TokenUsage(
                prompt_tokens=self._usage.prompt_tokens + usage.prompt_tokens,
                completion_tokens=self._usage.completion_tokens + usage.completion_tokens,
            )

    def close(self, timeout_s: float = 5.0) -> bool:
        """Stop forwarding, and give the requests running ``timeout_s`` to end.

        The path answers 404 from now on; the counts stay readable.

        Args:
            timeout_s: the longest to wait for the requests still running.

        Returns:
            True when no request is left running, so the counts are final; False when
            some still run (they are counted when they end).
        """
        self._on_close()
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout_s)

    def __enter__(self) -> Meter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:  # the path's token is left out: it is the meter's identity
        return f"Meter(requests={self.requests}, usage={self.usage!r})"


class LlmProxy:
    """Forwards OpenAI-compatible requests to ``upstream``, counting tokens per meter.

    It listens on 127.0.0.1, on a free port, in a daemon thread, from ``start()`` (or
    entering it as a context manager) until ``close()``.

    Args:
        upstream: the real API's base URL, e.g. ``http://127.0.0.1:8000/v1``: an http or
            https URL without credentials, query or fragment.
        read_timeout_s: the longest the proxy waits for the upstream's next bytes.

    Raises:
        ConfigError: ``upstream`` is not such a URL.
    """

    def __init__(self, upstream: str, read_timeout_s: float = 600.0) -> None:
        self.upstream = check_upstream(upstream)
        self._target = Target.of(self.upstream, read_timeout_s)
        self._meters: dict[str, Meter] = {}
        self._lock = threading.Lock()
        self._server: ProxyServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Where the proxy listens: ``http://127.0.0.1:PORT``.

        Raises:
            RunError: the proxy is not started.
        """
        if self._server is None:
            raise RunError("the LLM proxy is not started: call start() first")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> None:
        """Listen on a free port of 127.0.0.1 and serve in a daemon thread (once)."""
        if self._server is not None:
            return
        self._server = ProxyServer(self._target, self._meter_of)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # close() waits at most one poll for the loop
            name="webharness-llm-proxy",
            daemon=True,
        )
        self._thread.start()
        logger.debug("LLM proxy at %s forwards to %s", self.url, self.upstream)

    def meter(self) -> Meter:
        """A new meter: an unguessable path of its own, counted apart from the others.

        Raises:
            RunError: the proxy is not started.
        """
        token = secrets.token_urlsafe(16)
        meter = Meter(f"{self.url}/{token}", functools.partial(self._forget, token))
        with self._lock:
            self._meters[token] = meter
        return meter

    def close(self) -> None:
        """Stop listening, end the open connections and their threads, and forget the meters."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()  # the accept loop ends
        server.drop_connections()  # connections in progress end, their threads with them
        server.server_close()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._meters.clear()

    def _meter_of(self, token: str) -> Meter | None:
        with self._lock:
            return self._meters.get(token)

    def _forget(self, token: str) -> None:
        with self._lock:
            self._meters.pop(token, None)

    def __enter__(self) -> LlmProxy:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def check_upstream(upstream: str) -> str:
    """``upstream`` without a trailing slash, if it is an http(s) URL the proxy can use.

    Raises:
        ConfigError: it is not one (the message names the value and shows a good one).
    """
    try:
        parts = urlsplit(upstream)
        parts.port  # noqa: B018 (raises ValueError on a bad port)
    except (ValueError, TypeError):
        raise ConfigError(
            "llm_proxy", upstream, f"not a URL; give one such as {UPSTREAM_EXAMPLE}"
        ) from None
    problem = None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        problem = "the upstream must be an http:// or https:// URL with a host"
    elif parts.username is not None or parts.password is not None:
        shown = parts._replace(netloc=f"***@{parts.netloc.rpartition('@')[2]}").geturl()
        raise ConfigError(
            "llm_proxy",
            shown,
            "credentials do not go in the URL: the agent's "
            "client sends its key (OPENAI_API_KEY), and the proxy passes it on",
        )
    elif parts.query or parts.fragment:
        problem = "the upstream takes no query or fragment: the agent's requests bring theirs"
    if problem:
        raise ConfigError("llm_proxy", upstream, f"{problem}, such as {UPSTREAM_EXAMPLE}")
    return upstream.rstrip("/")


def _model_of(body: bytes) -> str | None:
    if not body.lstrip().startswith(b"{"):
        return None
    try:
        model = json.loads(body).get("model")
    except ValueError:
        return None
    return model if isinstance(model, str) else None
