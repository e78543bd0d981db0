"""load_agent: built-in names, module:Class paths, and errors that suggest the fix."""

from __future__ import annotations

import pytest

import webharness.agents as agents
from webharness.agents import (
    Agent,
    AgentLoadError,
    HeuristicAgent,
    LLMAgent,
    OracleAgent,
    RandomAgent,
    TokenUsage,
    accepted_options,
    agent_usage,
    load_agent,
)
from webharness.errors import WebHarnessError


class EchoAgent:
    """A user-defined agent loaded by path in the tests below."""

    name = "echo"

    def __init__(self, action: str = "noop()") -> None:
        self.action = action

    def reset(self, instance) -> None:
        pass

    def act(self, obs, info) -> str:
        return self.action


@pytest.mark.parametrize(
    ("spec", "options", "cls"),
    [
        ("oracle", {}, OracleAgent),
        ("random", {"seed": 3}, RandomAgent),
        ("heuristic", {}, HeuristicAgent),
        ("llm", {"model": "test-model", "api_key": "sk-test"}, LLMAgent),
    ],
)
def test_load_agent_makes_each_builtin(spec, options, cls):
    agent = load_agent(spec, **options)
    assert isinstance(agent, cls)
    assert isinstance(agent, Agent)
    assert agent.name == spec


def test_load_agent_passes_options_to_the_constructor():
    assert load_agent("random", seed=11).seed == 11
    assert load_agent("oracle", path_id="enter-key").path_id == "enter-key"


def test_load_agent_imports_module_colon_class():
    agent = load_agent("tests.agents.test_base:EchoAgent", action="done()")
    assert isinstance(agent, EchoAgent) and agent.act({}, {}) == "done()"
    assert isinstance(load_agent("webharness.agents.random_agent:RandomAgent"), RandomAgent)


def test_unknown_name_says_did_you_mean_and_lists_builtins():
    with pytest.raises(AgentLoadError) as err:
        load_agent("heurstic")
    message = str(err.value)
    assert "'heurstic'" in message and "Did you mean: 'heuristic'?" in message
    assert all(name in message for name in ("oracle", "random", "heuristic", "llm"))
    assert isinstance(err.value, ValueError) and isinstance(err.value, WebHarnessError)


def test_import_failure_names_the_value_and_lists_builtins():
    with pytest.raises(
        AgentLoadError,
        match=(
            r"cannot import agent 'no_such_pkg\.mod:Agent'"
            r".*Built-ins: oracle, random, heuristic, llm"
        ),
    ):
        load_agent("no_such_pkg.mod:Agent")


def test_missing_class_says_did_you_mean():
    with pytest.raises(
        AgentLoadError, match=r"has no 'HeuristicAgnt'.*Did you mean: 'HeuristicAgent'\?"
    ):
        load_agent("webharness.agents.heuristic:HeuristicAgnt")


def test_unknown_option_says_did_you_mean():
    with pytest.raises(AgentLoadError, match=r"no option 'sed'\. Did you mean: 'seed'\?"):
        load_agent("random", sed=1)


def test_accepted_options_lists_constructor_arguments():
    assert accepted_options("random") == {"seed", "done_prob"}
    assert "log_prompts" in accepted_options("llm") and "log_prompts" not in accepted_options(
        "heuristic"
    )
    assert accepted_options("tests.agents.test_base:EchoAgent") == {"action"}


def test_object_without_act_is_not_an_agent():
    with pytest.raises(AgentLoadError, match="not an Agent"):
        load_agent("collections:OrderedDict")


def test_agent_usage_is_zero_for_agents_without_usage():
    assert agent_usage(EchoAgent()) == TokenUsage()
    assert TokenUsage(prompt_tokens=3, completion_tokens=4).total_tokens == 7


def test_exports_are_complete():
    submodules = {"base", "heuristic", "llm", "random_agent", "specs"}
    public = {n for n in vars(agents) if not n.startswith("_")} - submodules
    assert public == set(agents.__all__)
