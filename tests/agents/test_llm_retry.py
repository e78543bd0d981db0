"""LLMAgent retries transient failures with bounded backoff, and says which failure stopped it.

Waits go to a fake clock (``FakeClock.sleep``): no test sleeps for real.
"""

from __future__ import annotations

import random
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.utils import formatdate

import pytest

from tests.support.fake_openai import (
    OBS,
    FakeClock,
    FakeOpenAI,
    Reply,
    completion,
    error,
    llm_agent,
)
from webharness.agents import LLMAgent, LLMUnavailableError
from webharness.agents.llm import RetryPolicy, parse_retry_after
from webharness.apps import free_port
from webharness.errors import AgentUnavailableError


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


# --- retried -----------------------------------------------------------------------------
def test_transient_500_then_success_returns_the_action_and_counts_the_retry(fake, clock):
    fake.script(error(500, "model overloaded"), completion('```action\nclick("e6")\n```'))
    agent = llm_agent(fake, clock)
    assert agent.act(OBS, {}) == "click('e6')"
    assert len(fake.requests) == 2 and len(clock.sleeps) == 1
    assert agent.stats.requests == 2 and agent.stats.retries == 1
    assert agent.stats.retry_wait_s == pytest.approx(clock.sleeps[0])
    agent.reset(None)
    assert agent.stats.retries == 0 and agent.total_stats.retries == 1


def test_429_with_retry_after_seconds_waits_at_least_that_long(fake, clock):
    fake.script(error(429, "slow down", {"Retry-After": "1"}), completion("noop()"))
    agent = llm_agent(fake, clock, max_retry_wait_s=10)
    assert agent.act(OBS, {}) == "noop()"
    (waited,) = clock.sleeps
    assert waited >= 1.0 and agent.stats.retries == 1


def test_retry_after_as_an_http_date_is_honoured(fake, clock):
    when = formatdate(clock.time() + 5, usegmt=True)
    fake.script(error(503, "maintenance", {"Retry-After": when}), completion("noop()"))
    llm_agent(fake, clock).act(OBS, {})
    (waited,) = clock.sleeps
    assert 4.0 <= waited <= 5.0  # HTTP dates have whole seconds


def test_dropped_connection_is_retried(fake, clock):
    fake.script(Reply(drop=True), completion("done()"))
    agent = llm_agent(fake, clock)
    assert agent.act(OBS, {}) == "done()" and agent.stats.retries == 1


def test_backoff_doubles_with_jitter_from_the_injected_generator(fake, clock):
    fake.responder = lambda body: error(500, "down")
    with pytest.raises(LLMUnavailableError):
        llm_agent(fake, clock, rng=random.Random(7), max_attempts=4).act(OBS, {})
    first, second, third = clock.sleeps
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0 and 2.0 <= third <= 4.0
    again = FakeClock()
    with pytest.raises(LLMUnavailableError):
        llm_agent(fake, again, rng=random.Random(7), max_attempts=4).act(OBS, {})
    assert again.sleeps == clock.sleeps  # same seed, same waits


# --- bounded -----------------------------------------------------------------------------
def test_persistent_500_stops_after_max_attempts_with_the_servers_message(fake, clock):
    fake.responder = lambda body: error(500, "model overloaded")
    agent = llm_agent(fake, clock, max_attempts=3)
    with pytest.raises(
        LLMUnavailableError, match=r"HTTP 500 after 3 attempts .*model overloaded.*max_attempts"
    ):
        agent.act(OBS, {})
    assert len(fake.requests) == 3 and agent.stats.retries == 2


def test_total_wait_stays_within_max_retry_wait_s(fake, clock):
    fake.responder = lambda body: error(502, "bad gateway")
    with pytest.raises(
        LLMUnavailableError, match=r"more than the .* left of max_retry_wait_s=2\.5"
    ):
        llm_agent(fake, clock, max_attempts=10, max_retry_wait_s=2.5).act(OBS, {})
    assert sum(clock.sleeps) <= 2.5 and len(clock.sleeps) >= 1


def test_retry_after_beyond_the_budget_gives_up_without_waiting(fake, clock):
    fake.script(error(429, "quota", {"Retry-After": "120"}))
    with pytest.raises(LLMUnavailableError, match=r"wait 120\.0 s.*max_retry_wait_s=60"):
        llm_agent(fake, clock, max_retry_wait_s=60).act(OBS, {})
    assert clock.sleeps == [] and len(fake.requests) == 1


def test_max_attempts_1_means_no_retry(fake, clock):
    fake.script(error(500, "down"), completion("noop()"))
    with pytest.raises(LLMUnavailableError, match="HTTP 500"):
        llm_agent(fake, clock, max_attempts=1).act(OBS, {})
    assert clock.sleeps == [] and len(fake.requests) == 1


def test_retry_bounds_are_validated():
    with pytest.raises(ValueError, match="max_attempts=0"):
        LLMAgent(model="m", api_key="k", max_attempts=0)
    with pytest.raises(ValueError, match="max_retry_wait_s=-1"):
        LLMAgent(model="m", api_key="k", max_retry_wait_s=-1)


# --- which failure: unreachable, timed out, refused ---------------------------------------
def test_slow_server_times_out_naming_the_timeout_option(fake, clock):
    fake.responder = lambda body: Reply(hold=True)  # answers only once the test is over
    agent = llm_agent(fake, clock, timeout_s=0.2, max_attempts=2)
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError) as err:
        agent.act(OBS, {})
    message = str(err.value)
    assert "timed out after 2 attempts" in message and "timeout_s=0.2" in message
    assert "raise the timeout_s option" in message and "unreachable" not in message
    assert agent.stats.retries == 1 and time.monotonic() - started < 5


def test_connection_refused_is_unreachable_and_not_retried(clock):
    port = free_port()
    agent = LLMAgent(
        model="m", api_key="k", base_url=f"http://127.0.0.1:{port}/v1", sleep=clock.sleep
    )
    with pytest.raises(LLMUnavailableError, match=r"unreachable \(.*refused.*WEBHARNESS_LLM"):
        agent.act(OBS, {})
    assert clock.sleeps == [] and agent.stats.requests == 1


def test_400_is_refused_with_the_servers_message_and_not_retried(fake, clock):
    fake.script(error(400, "messages[1].content must be a string"))
    agent = llm_agent(fake, clock)
    with pytest.raises(
        LLMUnavailableError,
        match=r"refused the request: HTTP 400: messages\[1\]\.content must be a string",
    ) as err:
        agent.act(OBS, {})
    assert isinstance(err.value, AgentUnavailableError)
    assert len(fake.requests) == 1 and clock.sleeps == []


def test_non_json_error_body_is_shown_as_text(fake, clock):
    fake.script(Reply(404, "<html>no such route</html>"))
    with pytest.raises(LLMUnavailableError, match=r"HTTP 404: <html>no such route</html>"):
        llm_agent(fake, clock).act(OBS, {})


# --- the policy alone --------------------------------------------------------------------
def test_retry_after_floors_the_backoff_and_backoff_is_capped():
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=4.0)
    rng = random.Random(0)
    assert policy.delay(1, 9.0, rng) == 9.0
    assert all(2.0 <= policy.delay(retry, None, rng) <= 4.0 for retry in range(3, 12))


def test_a_timeout_while_connecting_says_unreachable(monkeypatch, clock):
    def no_connection(request: object, timeout: float) -> object:
        raise urllib.error.URLError(TimeoutError("timed out"))  # how urllib reports it

    monkeypatch.setattr(urllib.request, "urlopen", no_connection)
    agent = LLMAgent(model="m", api_key="k", timeout_s=2, max_attempts=2, sleep=clock.sleep)
    with pytest.raises(
        LLMUnavailableError, match=r"unreachable \(no connection within timeout_s=2 s after 2"
    ):
        agent.act(OBS, {})
    assert agent.stats.retries == 1


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("3", 3.0),
        (" 1.5 ", 1.5),
        ("-4", 0.0),
        ("Thu, 01 Jan 1970 00:01:40 GMT", 40.0),  # now is 60
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),  # already past
        ("soon", None),
        ("inf", None),
        (None, None),
    ],
)
def test_retry_after_reads_seconds_and_http_dates(header, seconds):
    assert parse_retry_after(header, now=60.0) == seconds
