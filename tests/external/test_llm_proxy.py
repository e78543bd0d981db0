"""The LLM token proxy, between the real OpenAI client and a fake upstream: every request
forwarded unchanged, streams relayed as they come, tokens counted per meter, the key
written nowhere."""

from __future__ import annotations

import gzip
import http.client
import json
import logging
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import openai
import pytest

from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    chunks,
    completion,
    error,
    response,
    responses_stream,
)
from webharness.agents.base import TokenUsage
from webharness.apps import free_port
from webharness.errors import ConfigError
from webharness.external import LlmProxy, Meter

KEY = "sk-test-d0-not-wr1te-me"
MESSAGES: Any = [{"role": "user", "content": "Add a contact"}]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def proxy(server: FakeOpenAI) -> Iterator[LlmProxy]:
    with LlmProxy(server.base_url) as started:
        yield started


class Agents:
    """OpenAI clients as an agent process makes them (the real client, retrying nothing),
    closed after the test."""

    def __init__(self) -> None:
        self.opened: list[openai.OpenAI] = []

    def client(self, at: Meter | str) -> openai.OpenAI:
        url = at if isinstance(at, str) else at.base_url
        self.opened.append(openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=10))
        return self.opened[-1]

    def chat(self, at: Meter | str, **options: Any) -> Any:
        chat = self.client(at).chat.completions
        return chat.create(model="fake-model", messages=MESSAGES, **options)


@pytest.fixture
def agents() -> Iterator[Agents]:
    made = Agents()
    yield made
    for opened in made.opened:
        opened.close()


def held_stream(
    server: FakeOpenAI, agents: Agents, meter: Meter, prompt_tokens: int, completion_tokens: int
) -> Iterator[Any]:
    """The events of a streamed chat completion ("first", "second", the stop, the usage)
    whose last one the upstream holds until ``server.release`` is set."""
    held = chunks("first second", prompt_tokens, completion_tokens)
    held.hold = True
    server.script(held)
    return iter(agents.chat(meter, stream=True, stream_options={"include_usage": True}))


def raw_request(
    meter: Meter, method: str, suffix: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> int:
    """Send a request to ``meter.base_url + suffix`` with no client library; the status."""
    parts = urlsplit(meter.base_url + suffix)
    connection = http.client.HTTPConnection(parts.netloc, timeout=10)
    path = parts.path + ("?" + parts.query if parts.query else "")
    connection.request(method, path, body=body or None, headers=headers or {})
    status = connection.getresponse().status
    connection.close()
    return status


def test_a_chat_completion_is_counted_as_the_upstream_reports_it(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    server.script(completion("click('e5')", prompt_tokens=321, completion_tokens=12))
    with proxy.meter() as meter:  # leaving it closes the meter: its counts are final
        answer = agents.chat(meter)
    assert answer.choices[0].message.content == "click('e5')"
    assert meter.usage == TokenUsage(prompt_tokens=321, completion_tokens=12)
    assert (meter.requests, meter.uncounted, meter.models) == (1, 0, ("fake-model",))
    assert server.requests[0].path == "/v1/chat/completions"


def test_a_streamed_chat_completion_with_include_usage_is_counted(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    server.script(chunks("fill the form", prompt_tokens=250, completion_tokens=7))
    meter = proxy.meter()
    stream = agents.chat(meter, stream=True, stream_options={"include_usage": True})
    words = [c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content]
    assert words == ["fill", "the", "form"]
    assert meter.close()  # no request left running: the counts are final
    assert meter.usage == TokenUsage(prompt_tokens=250, completion_tokens=7)
    assert meter.uncounted == 0


def test_a_stream_that_reports_no_usage_counts_as_uncounted(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    server.script(chunks("done", include_usage=False))
    meter = proxy.meter()
    assert len(list(agents.chat(meter, stream=True))) == 2
    assert meter.close()
    assert (meter.usage, meter.requests, meter.uncounted) == (TokenUsage(), 1, 1)
    # The request went as the client sent it: the proxy asked for no usage on its behalf.
    assert "stream_options" not in server.requests[0].body


def test_a_responses_api_answer_is_counted_from_input_and_output_tokens(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    server.script(response("Saved the contact", input_tokens=900, output_tokens=40))
    meter = proxy.meter()
    answer = agents.client(meter).responses.create(model="fake-model", input="Add a contact")
    assert answer.output_text == "Saved the contact"
    assert meter.close()
    assert meter.usage == TokenUsage(prompt_tokens=900, completion_tokens=40)
    assert server.requests[0].path == "/v1/responses"


def test_a_streamed_responses_api_answer_is_counted_from_response_completed(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    server.script(responses_stream("Saved the contact", input_tokens=640, output_tokens=33))
    meter = proxy.meter()
    stream = agents.client(meter).responses.create(
        model="fake-model", input="Add a contact", stream=True
    )
    kinds = [event.type for event in stream]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert meter.close()
    assert meter.usage == TokenUsage(prompt_tokens=640, completion_tokens=33)
    assert meter.uncounted == 0


def test_a_meter_sums_its_requests_and_two_meters_count_apart(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    first, second = proxy.meter(), proxy.meter()
    server.script(completion("a", 100, 10), chunks("b", 200, 20), response("c", 300, 30))
    agents.chat(first)
    list(agents.chat(first, stream=True, stream_options={"include_usage": True}))
    agents.client(second).responses.create(model="other-model", input="x")
    assert first.close() and second.close()
    assert first.usage == TokenUsage(prompt_tokens=300, completion_tokens=30)
    assert second.usage == TokenUsage(prompt_tokens=300, completion_tokens=30)
    assert (first.requests, second.requests) == (2, 1)
    assert (first.models, second.models) == (("fake-model",), ("other-model",))
    assert first.base_url != second.base_url


def test_requests_running_at_once_are_all_counted(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    # Each answer's tokens come from its request, so a lost update shows in the sums.
    server.responder = lambda body: completion("ok", len(body["messages"][0]["content"]), 1)
    meter = proxy.meter()
    agent = agents.client(meter)
    sizes = [1 + i % 7 for i in range(40)]

    def ask(size: int) -> None:
        messages: Any = [{"role": "user", "content": "x" * size}]
        agent.chat.completions.create(model="fake-model", messages=messages)

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(ask, sizes))
    assert meter.close()
    assert meter.usage == TokenUsage(prompt_tokens=sum(sizes), completion_tokens=len(sizes))
    assert meter.requests == len(sizes)


def test_the_upstream_receives_the_body_and_headers_the_client_sent(
    server: FakeOpenAI, proxy: LlmProxy
) -> None:
    body = b'{"model": "fake-model",  "messages": [],\n "temperature": 0.25 }'
    headers = {
        "Authorization": f"Bearer {KEY}",
        "Content-Type": "application/json",
        "X-Custom": "kept",
        "Connection": "keep-alive, X-Hop",
        "X-Hop": "named by Connection: dropped",
        "Keep-Alive": "timeout=5",
    }
    suffix = "/chat/completions?api-version=2024-06-01"
    assert raw_request(proxy.meter(), "POST", suffix, body, headers) == 200
    received = server.requests[0]
    assert received.raw == body
    assert received.path == "/v1/chat/completions?api-version=2024-06-01"
    assert received.headers["Authorization"] == f"Bearer {KEY}"
    assert received.headers["X-Custom"] == "kept"
    assert received.headers["Host"] == server.base_url.split("/")[2]
    assert {"X-Hop", "Keep-Alive", "Connection"}.isdisjoint(received.headers)


def test_the_openai_clients_request_reaches_the_upstream_byte_for_byte(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    agents.chat(server.base_url, temperature=0.5, seed=3)
    agents.chat(proxy.meter(), temperature=0.5, seed=3)
    sent, forwarded = server.requests
    assert forwarded.raw == sent.raw
    assert forwarded.headers["authorization"] == sent.headers["authorization"] == f"Bearer {KEY}"


def test_a_stream_reaches_the_client_before_the_upstream_has_finished(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    # A proxy that buffered the answer would hold the first event with the last, and the
    # client would time out waiting for it.
    meter = proxy.meter()
    events = held_stream(server, agents, meter, prompt_tokens=50, completion_tokens=2)
    assert next(events).choices[0].delta.content == "first"
    assert meter.usage == TokenUsage()  # the usage is in the event still held
    server.release.set()
    assert len(list(events)) == 3  # "second", the stop, the usage
    assert meter.close()
    assert meter.usage == TokenUsage(prompt_tokens=50, completion_tokens=2)


def test_an_upstream_error_is_relayed_as_it_is(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    server.script(error(429, "slow down", {"Retry-After": "7"}, type="rate_limit"))
    meter = proxy.meter()
    with pytest.raises(openai.RateLimitError) as caught:
        agents.chat(meter)
    assert caught.value.response.headers["retry-after"] == "7"
    assert caught.value.body == {"message": "slow down", "type": "rate_limit"}
    assert meter.close()
    assert (meter.requests, meter.uncounted, meter.usage) == (1, 0, TokenUsage())


def test_a_compressed_answer_is_counted(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    plain = completion("ok", prompt_tokens=77, completion_tokens=5)
    packed = gzip.compress(json.dumps(plain.body).encode())
    server.script(Reply(200, packed, {"Content-Encoding": "gzip"}))
    meter = proxy.meter()
    assert agents.chat(meter).choices[0].message.content == "ok"
    assert meter.close()
    assert meter.usage == TokenUsage(prompt_tokens=77, completion_tokens=5)


def test_the_key_is_written_nowhere_even_when_the_upstream_fails(
    server: FakeOpenAI,
    proxy: LlmProxy,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    agents: Agents,
) -> None:
    caplog.set_level(logging.DEBUG)
    server.script(error(500, "the model is overloaded"))
    with pytest.raises(openai.InternalServerError) as failed:
        agents.chat(proxy.meter())
    assert failed.value.status_code == 500
    unreachable = f"http://127.0.0.1:{free_port()}/v1"
    with LlmProxy(unreachable) as dead, pytest.raises(openai.APIStatusError) as refused:
        agents.chat(dead.meter())
    assert refused.value.status_code == 502
    message = refused.value.body["message"]  # type: ignore[index]
    assert unreachable in message and KEY not in message
    out, err = capfd.readouterr()
    ours = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("webharness"))
    assert unreachable in ours  # the proxy did log: the check below has something to read
    assert KEY not in ours and KEY not in out and KEY not in err


def test_a_wrong_or_closed_token_gets_404(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    meter = proxy.meter()
    with pytest.raises(openai.NotFoundError):
        agents.chat(proxy.url + "/not-a-token")
    agents.chat(meter)
    meter.close()
    with pytest.raises(openai.NotFoundError):
        agents.chat(meter)
    assert len(server.requests) == 1  # only the one while the meter was open went upstream
    assert meter.requests == 1


@pytest.mark.parametrize(
    "upstream",
    ["ftp://127.0.0.1/v1", "127.0.0.1:8000/v1", "http://", "http://h:99999/v1", "http://h/v1?x=1"],
)
def test_a_bad_upstream_is_a_config_error_naming_it(upstream: str) -> None:
    with pytest.raises(ConfigError) as caught:
        LlmProxy(upstream)
    assert repr(upstream) in str(caught.value)
    assert "http://127.0.0.1:8000/v1" in str(caught.value)  # a good one, shown


def test_credentials_in_the_upstream_url_are_refused_without_repeating_them() -> None:
    with pytest.raises(ConfigError) as caught:
        LlmProxy("https://user:hunter2@llm.example/v1")
    assert "hunter2" not in str(caught.value)
    assert "llm.example" in str(caught.value)


def test_close_leaves_no_thread_and_the_port_refuses_connections(
    server: FakeOpenAI, agents: Agents
) -> None:
    proxy = LlmProxy(server.base_url)
    proxy.start()
    port = int(proxy.url.rsplit(":", 1)[1])
    agent = agents.client(proxy.meter())
    agent.chat.completions.create(model="fake-model", messages=MESSAGES)  # a kept-alive link
    assert proxy_threads()
    proxy.close()
    assert proxy_threads() == []  # the listener's and the kept-alive connection's
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5)


def proxy_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("webharness-llm-proxy")]


def test_closing_a_meter_lets_the_running_request_end_and_counts_it(
    server: FakeOpenAI, proxy: LlmProxy, agents: Agents
) -> None:
    meter = proxy.meter()
    events = held_stream(server, agents, meter, prompt_tokens=70, completion_tokens=2)
    next(events)
    assert meter.in_flight == 1
    assert not meter.close(timeout_s=0.05)  # the answer is still coming: counts not final
    with pytest.raises(openai.NotFoundError):  # but the meter takes no new request
        agents.chat(meter)
    server.release.set()
    list(events)
    assert meter.close()
    assert (meter.in_flight, meter.usage) == (0, TokenUsage(prompt_tokens=70, completion_tokens=2))


def test_a_request_other_than_post_passes_through_uncounted(
    server: FakeOpenAI, proxy: LlmProxy
) -> None:
    meter = proxy.meter()
    assert raw_request(meter, "GET", "/models") == 501  # the fake upstream's answer, relayed
    assert meter.close() and meter.requests == 0
