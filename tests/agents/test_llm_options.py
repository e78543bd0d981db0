"""LLMAgent's options: how they reach it, what they change in the request, chat memory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_openai import OBS, FakeOpenAI, Reply, completion, error, llm_agent
from webharness.agents import LLMAgent, LLMUnavailableError, accepted_options, load_agent

OPTIONS = {
    "model": "m2",
    "timeout_s": 3.0,
    "max_tokens": 50,
    "temperature": 0.3,
    "history": 2,
    "obs_parts": ["goal", "axtree"],
    "token_param": "max_completion_tokens",
    "max_attempts": 2,
    "max_retry_wait_s": 5.0,
}


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def unsupported(param: str) -> Reply:
    """OpenAI's answer to a token-limit field the model does not take."""
    return error(
        400,
        f"Unsupported parameter: '{param}' is not supported with this model.",
        param=param,
        code="unsupported_parameter",
    )


# --- options reach the agent the way the runner passes them --------------------------------
def test_run_options_reach_the_agent_through_load_agent(fake):
    accepted = accepted_options("llm")  # the runner passes an agent the options it accepts
    assert accepted is not None and set(OPTIONS) <= accepted
    agent = load_agent("llm", base_url=fake.base_url, api_key="sk-test", **OPTIONS)
    assert isinstance(agent, LLMAgent)
    agent.act(OBS, {})
    body = fake.requests[-1].body
    assert body["model"] == "m2" and body["max_completion_tokens"] == 50
    assert body["temperature"] == 0.3 and "max_tokens" not in body
    user = body["messages"][-1]["content"]
    assert OBS["goal"] in user and OBS["axtree"] in user and OBS["url"] not in user
    assert agent.history == 2 and agent.client.retry.max_attempts == 2


def test_obs_parts_also_read_from_a_comma_separated_string():
    agent = LLMAgent(model="m", api_key="k", obs_parts="goal, url")
    assert agent.obs_parts == ("goal", "url")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"obs_parts": ["axtre"]}, r"obs_parts has 'axtre'.*Did you mean: 'axtree'\?"),
        ({"token_param": "max_token"}, r"token_param='max_token'.*Did you mean: 'max_tokens'\?"),
        ({"history": 99}, r"history=99: keep 0 to 20"),
        ({"set_of_marks": True}, r"set_of_marks=True .* needs vision=True"),
        ({"obs_parts": ["screenshot"]}, r"'screenshot' but vision=False: pass vision=True"),
        ({"timeout_s": 0}, r"timeout_s=0 .* must be positive"),
    ],
)
def test_bad_options_say_what_to_change(options, message):
    with pytest.raises(ValueError, match=message):
        LLMAgent(model="m", api_key="k", **options)


# --- temperature and the token limit -----------------------------------------------------
def test_temperature_is_absent_unless_set(fake):
    llm_agent(fake).act(OBS, {})
    assert "temperature" not in fake.requests[-1].body
    llm_agent(fake, temperature=0.0).act(OBS, {})
    assert fake.requests[-1].body["temperature"] == 0.0


def test_token_limit_goes_as_max_tokens_by_default(fake):
    llm_agent(fake, max_tokens=77).act(OBS, {})
    body = fake.requests[-1].body
    assert body["max_tokens"] == 77 and "max_completion_tokens" not in body


def test_a_400_naming_max_tokens_switches_to_max_completion_tokens_and_remembers(fake):
    fake.script(unsupported("max_tokens"))
    agent = llm_agent(fake, max_tokens=90)
    assert agent.act(OBS, {}) == "noop()"
    agent.act(OBS, {})
    sent = [[k for k in body if k.startswith("max_")] for body in fake.bodies()]
    assert sent == [["max_tokens"], ["max_completion_tokens"], ["max_completion_tokens"]]
    assert fake.bodies()[-1]["max_completion_tokens"] == 90
    assert agent.token_param == "max_completion_tokens" and agent.stats.token_param_switches == 1


def test_the_token_limit_is_switched_once_only(fake):
    fake.responder = lambda body: unsupported(next(k for k in body if k.startswith("max_")))
    agent = llm_agent(fake)
    with pytest.raises(
        LLMUnavailableError,
        match=r"refused the request: HTTP 400: Unsupported parameter: 'max_tokens'.*"
        r"\(sent as 'max_completion_tokens' instead: Unsupported parameter: 'max_completion",
    ):
        agent.act(OBS, {})
    assert len(fake.requests) == 2 and agent.token_param == "max_tokens"
    assert agent.stats.token_param_switches == 0


def test_a_400_about_something_else_does_not_switch(fake):
    fake.script(error(400, "context length exceeded", param="messages"))
    with pytest.raises(LLMUnavailableError, match="context length exceeded"):
        llm_agent(fake).act(OBS, {})
    assert len(fake.requests) == 1


# --- chat memory -------------------------------------------------------------------------
def play_steps(fake: FakeOpenAI, agent: LLMAgent, steps: int) -> list[dict]:
    """Act ``steps`` times (the n-th request is answered "Step n." and clicks e<n>); the
    last request's messages."""

    def reply(body: dict) -> Reply:
        n = len(fake.requests)
        return completion(f'Step {n}.\n```action\nclick("e{n}")\n```')

    fake.responder = reply
    for _ in range(steps):
        agent.act(OBS, {})
    return fake.requests[-1].body["messages"]


def test_history_keeps_at_most_n_earlier_turns(fake):
    messages = play_steps(fake, llm_agent(fake, history=2), 5)
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[2]["content"].startswith("Step 3.") and messages[4]["content"].startswith(
        "Step 4."
    )
    assert "# Step 3 (earlier" in messages[1]["content"]
    current = messages[-1]["content"]
    assert "3. click('e3')" in current and "4. click('e4')" in current
    assert "2. click('e2')" not in current


def test_earlier_turns_carry_the_reply_and_url_not_the_tree(fake):
    messages = play_steps(fake, llm_agent(fake), 2)
    earlier = messages[1]["content"]
    assert OBS["url"] in earlier and OBS["axtree"] not in earlier
    assert OBS["axtree"] in messages[-1]["content"]


def test_history_zero_sends_only_the_current_step(fake):
    messages = play_steps(fake, llm_agent(fake, history=0), 3)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "# Previous actions (oldest first)\nnone yet" in messages[-1]["content"]


def test_reset_forgets_the_chat(fake):
    agent = llm_agent(fake)
    play_steps(fake, agent, 3)
    agent.reset(None)
    agent.act(OBS, {})
    assert len(fake.requests[-1].body["messages"]) == 2
