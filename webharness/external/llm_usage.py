r"""Token usage read out of OpenAI-compatible responses: JSON bodies and SSE streams.

Two shapes of usage are read:

* Chat Completions (and legacy completions, embeddings): ``usage.prompt_tokens`` and
  ``usage.completion_tokens`` (embeddings have no completion tokens: 0). Streamed, the
  usage comes in the last chunk, and only when the request asked for it with
  ``stream_options={"include_usage": True}``.
* The Responses API (the OpenAI Agents SDK's default): ``usage.input_tokens`` and
  ``usage.output_tokens``. Streamed, it comes in the ``response.completed`` event (or
  ``response.incomplete``, ``response.failed``) as ``response.usage``.

A ``UsageReader`` is fed a response's body as it passes, chunk by chunk, and keeps the
last usage seen (servers that report a running total in every chunk end on the full one).
It undoes ``gzip`` and ``deflate`` content encodings; a body in another encoding
(``br``, ``zstd``), one that is not JSON or SSE, or one larger than ``MAX_BUFFER`` bytes
is passed on without being read: it has no usage.

Example:
    >>> reader = UsageReader("text/event-stream", "")
    >>> reader.feed(b'data: {"choices": [], "usage": null}\n\n')
    >>> reader.feed(b'data: {"choices": [], "usage": {"prompt_tokens": 7, "completion')
    >>> reader.feed(b'_tokens": 2}}\n\ndata: [DONE]\n\n')
    >>> reader.finish()
    TokenUsage(prompt_tokens=7, completion_tokens=2)
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from webharness.agents.base import TokenUsage

MAX_BUFFER = 32 * 1024 * 1024  # a JSON body or one SSE line longer than this is not read
# zlib's window bits that accept a gzip or a zlib header (Content-Encoding gzip, deflate).
_GZIP_OR_ZLIB = 32 + zlib.MAX_WBITS
_DECODED = {"", "identity", "gzip", "x-gzip", "deflate"}


def usage_of(payload: Any) -> TokenUsage | None:
    """The usage an OpenAI-compatible JSON payload reports, if it reports one.

    Args:
        payload: a decoded response body or SSE event: a chat completion or chunk, a
            Responses API response, or a Responses stream event carrying a ``response``.

    Returns:
        The prompt (input) and completion (output) tokens, or None when the payload has
        no usage (a chunk before the last, an error, a stream that was not asked for it).

    Example:
        >>> usage_of({"usage": {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15}})
        TokenUsage(prompt_tokens=12, completion_tokens=3)
        >>> usage_of({"type": "response.created", "response": {"usage": None}}) is None
        True
    """
    if not isinstance(payload, dict):
        return None
    usage = payload.get("usage")
    response = payload.get("response")
    if usage is None and isinstance(response, dict):
        usage = response.get("usage")
    if not isinstance(usage, dict):
        return None
    prompt = usage.get("prompt_tokens", usage.get("input_tokens"))
    completion = usage.get("completion_tokens", usage.get("output_tokens", 0))
    if not (_is_count(prompt) and _is_count(completion)):
        return None
    return TokenUsage(prompt_tokens=prompt, completion_tokens=completion)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class UsageReader:
    """Reads one response's usage from its body while the body passes, chunk by chunk.

    Args:
        content_type: the response's ``Content-Type``; ``text/event-stream`` is read as
            SSE, anything else as one JSON document.
        content_encoding: the response's ``Content-Encoding`` (``""`` when none).
    """

    def __init__(self, content_type: str, content_encoding: str) -> None:
        self.streaming = "text/event-stream" in content_type.lower()
        encoding = content_encoding.strip().lower()
        self._readable = encoding in _DECODED
        self._inflate = None if encoding in ("", "identity") else zlib.decompressobj(_GZIP_OR_ZLIB)
        self._buffer = bytearray()
        self._data: list[bytes] = []  # the data lines of the SSE event being read
        self._usage: TokenUsage | None = None

    def feed(self, chunk: bytes) -> None:
        """Read the next piece of the body (as it came over the wire, still encoded)."""
        if not self._readable or not chunk:
            return
        try:
            data = self._inflate.decompress(chunk) if self._inflate else chunk
        except zlib.error:
            self._give_up()
            return
        self._buffer += data
        if self.streaming and b"\n" in data:
            self._read_lines()
        if len(self._buffer) > MAX_BUFFER:
            self._give_up()

    def finish(self) -> TokenUsage | None:
        """The usage the body reported, once the whole body has been fed (None if none)."""
        if not self._readable:
            return None
        if self.streaming:
            self._buffer += b"\n\n"  # a last event without its blank line still counts
            self._read_lines()
            return self._usage
        try:
            return usage_of(json.loads(bytes(self._buffer)))
        except ValueError:  # not JSON (or not UTF-8): no usage to read
            return None

    def _read_lines(self) -> None:
        *lines, rest = bytes(self._buffer).split(b"\n")
        self._buffer = bytearray(rest)
        for line in lines:
            line = line.rstrip(b"\r")
            if not line:
                self._dispatch()
            elif line.startswith(b"data:"):
                self._data.append(line[5:].removeprefix(b" "))

    def _dispatch(self) -> None:
        data, self._data = b"\n".join(self._data), []
        if not data or data == b"[DONE]":
            return
        try:
            usage = usage_of(json.loads(data))
        except ValueError:
            return
        self._usage = usage or self._usage

    def _give_up(self) -> None:
        self._readable = False
        self._buffer = bytearray()
        self._usage = None
