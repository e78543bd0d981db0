"""LLMAgent against a local fake OpenAI-compatible server (stdlib http.server in a thread)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.episodes import agent_policy, play
from tests.support.fake_openai import OBS, FakeOpenAI, Reply, completion, llm_agent
from webharness.action_result import ActionErrorKind
from webharness.agents import LLMAgent, LLMUnavailableError, TokenUsage, build_messages, parse_reply
from webharness.agents.llm import Turn
from webharness.apps import free_port
from webharness.errors import AgentUnavailableError, WebHarnessError


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


# --- the request -------------------------------------------------------------------------
def test_request_has_model_key_and_messages_with_goal_and_axtree(fake):
    llm_agent(fake, temperature=0.2, max_tokens=123).act(OBS, {})
    (request,) = fake.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer sk-test"
    body = request.body
    assert (
        body["model"] == "fake-model" and body["temperature"] == 0.2 and body["max_tokens"] == 123
    )
    system, user = body["messages"]
    assert system["role"] == "system" and "select_option(ref, option)" in system["content"]
    assert "```action" in system["content"] and "ask_user(question)" in system["content"]
    assert (
        user["role"] == "user"
        and OBS["goal"] in user["content"]
        and OBS["axtree"] in user["content"]
    )


def test_configuration_comes_from_the_environment(fake, monkeypatch):
    monkeypatch.setenv("WEBHARNESS_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("WEBHARNESS_LLM_MODEL", "env-model")
    monkeypatch.delenv("WEBHARNESS_LLM_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fallback")
    LLMAgent().act(OBS, {})
    request = fake.requests[-1]
    assert request.body["model"] == "env-model"
    assert request.headers["Authorization"] == "Bearer sk-fallback"
    monkeypatch.setenv("WEBHARNESS_LLM_API_KEY", "sk-preferred")
    LLMAgent().act(OBS, {})
    assert fake.requests[-1].headers["Authorization"] == "Bearer sk-preferred"


def test_previous_actions_and_their_errors_are_in_the_next_prompt(fake):
    agent = llm_agent(fake)
    fake.responder = lambda body: completion('click("e9")')
    agent.act(OBS, {})
    agent.act({**OBS, "last_action_error": "element e9 is stale"}, {})
    user = fake.requests[-1].body["messages"][-1]["content"]
    assert "1. click('e9')  -> error: element e9 is stale" in user
    assert "# Last action error\nelement e9 is stale" in user


# --- the reply -------------------------------------------------------------------------------
def test_fenced_action_is_parsed_and_tokens_are_counted(fake):
    agent = llm_agent(fake)
    fake.responder = lambda body: completion(
        'I will type the name.\n```action\nfill("e5", "Ada Lovelace")\n```', 120, 7
    )
    assert agent.act(OBS, {}) == "fill('e5', 'Ada Lovelace')"
    assert agent.act(OBS, {}) == "fill('e5', 'Ada Lovelace')"
    assert agent.usage == TokenUsage(prompt_tokens=240, completion_tokens=14)
    agent.reset(None)
    assert agent.usage == TokenUsage() and agent.total_usage == TokenUsage(
        prompt_tokens=240, completion_tokens=14
    )


def test_last_line_that_parses_is_used_without_a_fence():
    assert parse_reply('The form is open.\nAction: click("e6")\n') == "click('e6')"
    assert parse_reply('send_msg_to_user("$482,105")') == "send_msg_to_user('$482,105')"


def test_garbage_reply_is_returned_raw_and_the_env_says_unparseable(fake, make_env):
    garbage = "I am not sure what to do here, sorry."
    fake.responder = lambda body: completion(garbage)
    agent = llm_agent(fake)
    env = make_env("WebEval/form-v0", obs_mode="text")
    obs, info = env.reset(seed=0)
    agent.reset(info["task"])
    action = agent.act(obs, info)
    assert action == garbage
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["action_result"].error is ActionErrorKind.UNPARSEABLE and obs["last_action_error"]
    assert not terminated


# --- logging ---------------------------------------------------------------------------------
def test_log_prompts_off_keeps_no_prompt_or_reply(fake):
    agent = llm_agent(fake)
    agent.act(OBS, {})
    assert agent.transcript == []


def test_log_prompts_on_keeps_messages_and_replies(fake):
    fake.responder = lambda body: completion("```action\ndone()\n```", 50, 5)
    agent = llm_agent(fake, log_prompts=True)
    agent.act(OBS, {})
    (entry,) = agent.transcript
    assert entry["reply"] == "```action\ndone()\n```" and entry["action"] == "done()"
    assert OBS["axtree"] in entry["messages"][1]["content"]
    assert entry["usage"] == {"prompt_tokens": 50, "completion_tokens": 5}


# --- unavailable model -----------------------------------------------------------------------
def test_missing_key_fails_at_construction(monkeypatch):
    for var in ("WEBHARNESS_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(
        LLMUnavailableError,
        match=r"no API key for https://api\.openai\.com/v1 \(model 'm'\).*WEBHARNESS_LLM_API_KEY",
    ):
        LLMAgent(model="m")


def test_missing_model_fails_at_construction(monkeypatch):
    monkeypatch.delenv("WEBHARNESS_LLM_MODEL", raising=False)
    with pytest.raises(LLMUnavailableError, match="WEBHARNESS_LLM_MODEL"):
        LLMAgent(api_key="sk-test")


def test_unreachable_endpoint_raises_quickly():
    port = free_port()
    agent = LLMAgent(model="m", api_key="k", base_url=f"http://127.0.0.1:{port}/v1", timeout_s=5)
    started = time.monotonic()
    with pytest.raises(
        LLMUnavailableError,
        match=rf"cannot reach http://127\.0\.0\.1:{port}/v1/chat/completions \(model 'm'\)",
    ):
        agent.act(OBS, {})
    assert time.monotonic() - started < 3


def test_unavailable_model_is_an_agent_unavailable_error_not_an_agent_failure():
    assert issubclass(LLMUnavailableError, AgentUnavailableError) and issubclass(
        LLMUnavailableError, WebHarnessError
    )


def test_http_500_raises(fake):
    fake.responder = lambda body: (500, {"error": {"message": "model overloaded"}})
    with pytest.raises(LLMUnavailableError, match=r"HTTP 500.*model overloaded"):
        llm_agent(fake).act(OBS, {})


def test_http_401_hints_at_the_key(fake):
    fake.responder = lambda body: (401, {"error": {"message": "invalid api key"}})
    with pytest.raises(LLMUnavailableError, match=r"HTTP 401 \(check the API key\)"):
        llm_agent(fake).act(OBS, {})


def test_non_json_answer_raises(fake):
    fake.responder = lambda body: (200, "<html>proxy error</html>")
    with pytest.raises(LLMUnavailableError, match="did not answer JSON"):
        llm_agent(fake).act(OBS, {})


def test_slow_endpoint_times_out(fake):
    def stall(body: dict[str, Any]) -> Reply:
        fake.release.wait(10)
        return completion("noop()")

    fake.responder = stall
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError, match="timed out"):
        llm_agent(fake, timeout_s=0.5).act(OBS, {})
    assert time.monotonic() - started < 5


# --- the prompt ------------------------------------------------------------------------------
def test_long_trees_are_truncated():
    obs = {**OBS, "axtree": "x" * 20_000}
    user = build_messages(obs, [], max_tree_chars=12_000)[1]["content"]
    assert (
        "x" * 12_000 in user
        and "x" * 12_001 not in user
        and "truncated: 8000 more characters" in user
    )


def test_only_the_latest_actions_are_shown():
    history = [Turn(i, f"click('e{i}')") for i in range(1, 9)]
    user = build_messages(OBS, history, history=3)[-1]["content"]
    assert "6. click('e6')" in user and "8. click('e8')" in user and "click('e5')" not in user


# --- end to end ------------------------------------------------------------------------------
def _section(text: str, title: str) -> str:
    match = re.search(rf"# {title}[^\n]*\n(.*?)(?=\n# |\nReply with|\Z)", text, re.S)
    return match.group(1) if match else ""


def form_player(body: dict[str, Any]) -> Reply:
    """A scripted 'model' for WebEval/form-v0: reads goal, tree and history from the prompt."""
    prompt = body["messages"][-1]["content"]
    goal, tree = _section(prompt, "Goal"), _section(prompt, "Accessibility tree")
    done = re.findall(r"^(\d+)\. ", _section(prompt, "Previous actions"), re.M)
    step = int(done[-1]) if done else 0
    name, email, company, country, vip = re.search(
        r'full name "(.+?)", email (\S+), company (.+?), country (.+?), '
        r"(marked as a VIP|as a standard)",
        goal,
    ).groups()

    def ref(role: str, label: str) -> str:
        return json.dumps(
            re.search(rf'{role} "{re.escape(label)}"[^\n]*\[ref=(e\d+)\]', tree).group(1)
        )

    plan = [
        lambda: f"click({ref('button', 'New contact')})",
        lambda: f"fill({ref('textbox', 'Full name')}, {json.dumps(name)})",
        lambda: f"fill({ref('textbox', 'Email')}, {json.dumps(email)})",
        lambda: f"fill({ref('textbox', 'Company')}, {json.dumps(company)})",
        lambda: f"select_option({ref('combobox', 'Country')}, {json.dumps(country)})",
        *(
            [lambda: f"check({ref('checkbox', 'VIP customer')})"]
            if vip.startswith("marked")
            else []
        ),
        lambda: f"click({ref('button', 'Save contact')})",
        lambda: "done()",
    ]
    return completion(f"Step {step + 1}.\n```action\n{plan[step]()}\n```", 900, 12)


def test_scripted_model_plays_form_to_success(fake, make_env):
    fake.responder = form_player
    agent = llm_agent(fake)
    env = make_env("WebEval/form-v0", obs_mode="text")
    run = play(env, agent_policy(agent), seed=4, max_steps=15)
    assert run.success and run.actions[-1] == "done()", run.actions
    assert all(info["action_result"].ok for info in run.infos[1:])
    assert agent.usage == TokenUsage(
        prompt_tokens=900 * len(run.actions), completion_tokens=12 * len(run.actions)
    )
