"""Reading usage out of response bodies: the shapes of both APIs, SSE split anywhere, the
encodings read and those passed over."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

from webharness.agents.base import TokenUsage
from webharness.external import llm_usage
from webharness.external.llm_usage import UsageReader, usage_of

CHAT_STREAM = (
    b'data: {"choices": [{"delta": {"content": "hi"}}], "usage": null}\r\n\r\n'
    b'data: {"choices": [], "usage": {"prompt_tokens": 31, "completion_tokens": 4}}\r\n\r\n'
    b"data: [DONE]\r\n\r\n"
)
RESPONSES_STREAM = (
    b"event: response.created\n"
    b'data: {"type": "response.created", "response": {"usage": null}}\n\n'
    b"event: response.completed\n"
    b'data: {"type": "response.completed",\n'  # one event's data over two lines
    b'data:  "response": {"usage": {"input_tokens": 52, "output_tokens": 6}}}\n\n'
)


def tokens(prompt: int, completion: int = 0) -> TokenUsage:
    return TokenUsage(prompt_tokens=prompt, completion_tokens=completion)


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"usage": {"prompt_tokens": 5, "completion_tokens": 2}}, tokens(5, 2)),
        ({"usage": {"input_tokens": 8, "output_tokens": 3}}, tokens(8, 3)),
        ({"usage": {"prompt_tokens": 9, "total_tokens": 9}}, tokens(9)),  # embeddings
        ({"response": {"usage": {"input_tokens": 4, "output_tokens": 1}}}, tokens(4, 1)),
        ({"usage": None}, None),
        ({"usage": {"prompt_tokens": True, "completion_tokens": 1}}, None),
        ({"usage": {"prompt_tokens": -1, "completion_tokens": 1}}, None),
        ({"error": {"message": "overloaded"}}, None),
        ([1, 2], None),
    ],
)
def test_usage_is_read_from_either_apis_shape(payload: object, expected: TokenUsage | None) -> None:
    assert usage_of(payload) == expected


@pytest.mark.parametrize(
    ("stream", "expected"),
    [(CHAT_STREAM, tokens(31, 4)), (RESPONSES_STREAM, tokens(52, 6))],
)
def test_a_stream_split_at_any_byte_gives_the_same_usage(
    stream: bytes, expected: TokenUsage
) -> None:
    for cut in range(len(stream) + 1):
        reader = UsageReader("text/event-stream; charset=utf-8", "")
        reader.feed(stream[:cut])
        reader.feed(stream[cut:])
        assert reader.finish() == expected, cut


def test_a_stream_without_usage_has_none() -> None:
    reader = UsageReader("text/event-stream", "")
    reader.feed(b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\ndata: [DONE]\n\n')
    assert reader.finish() is None


def test_a_last_event_without_its_blank_line_still_counts() -> None:
    reader = UsageReader("text/event-stream", "")
    reader.feed(b'data: {"usage": {"prompt_tokens": 3, "completion_tokens": 1}}')
    assert reader.finish() == tokens(3, 1)


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_gzip_and_deflate_bodies_are_read(encoding: str) -> None:
    body = json.dumps({"usage": {"prompt_tokens": 12, "completion_tokens": 2}}).encode()
    packed = gzip.compress(body) if encoding == "gzip" else zlib.compress(body)
    reader = UsageReader("application/json", encoding)
    for at in range(0, len(packed), 5):
        reader.feed(packed[at : at + 5])
    assert reader.finish() == tokens(12, 2)


@pytest.mark.parametrize(
    ("content_encoding", "body"),
    [
        ("br", b'{"usage": {"prompt_tokens": 1, "completion_tokens": 1}}'),  # not decoded here
        ("gzip", b"not gzip at all"),
        ("", b"<html>502 Bad Gateway</html>"),
    ],
)
def test_a_body_that_cannot_be_read_has_no_usage(content_encoding: str, body: bytes) -> None:
    reader = UsageReader("application/json", content_encoding)
    reader.feed(body)
    assert reader.finish() is None


def test_a_body_over_the_bound_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llm_usage, "MAX_BUFFER", 64)
    reader = UsageReader("application/json", "")
    reader.feed(b'{"usage": {"prompt_tokens": 1, "completion_tokens": 1}, "pad": "')
    reader.feed(b"x" * 100 + b'"}')
    assert reader.finish() is None
