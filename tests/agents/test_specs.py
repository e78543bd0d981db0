"""Agent specs, ``name[key=value,...]``: reading them, their labels, and what an agent is."""

from __future__ import annotations

from typing import Any

import pytest

from webharness.agents import load_agent
from webharness.agents.specs import (
    AgentSpec,
    AgentSpecError,
    agent_identity,
    identity_changes,
    parse_agent_spec,
    parse_option,
    split_agent_specs,
)

GOOD = [
    ("oracle", "oracle", {}),
    ("llm[model=gpt-x]", "llm", {"model": "gpt-x"}),
    (" llm[ model = gpt-x , temperature=0.2 ] ", "llm", {"model": "gpt-x", "temperature": 0.2}),
    ("llm[vision=true,history=2,temperature=null]", "llm", {"vision": True, "history": 2}),
    ("llm[base_url=http://127.0.0.1:8000/v1]", "llm", {"base_url": "http://127.0.0.1:8000/v1"}),
    ("llm[obs_parts='goal,url,axtree']", "llm", {"obs_parts": "goal,url,axtree"}),
    ("llm[model='0.5']", "llm", {"model": "0.5"}),
    ("llm[model=gpt-4o-2024-08-06]", "llm", {"model": "gpt-4o-2024-08-06"}),
    ("my.pkg:Agent[seed=3]", "my.pkg:Agent", {"seed": 3}),
    ("my.pkg:Agent", "my.pkg:Agent", {}),
]


@pytest.mark.parametrize("text, name, options", GOOD, ids=[g[0] for g in GOOD])
def test_a_spec_is_read_and_its_label_reads_back_the_same(text, name, options):
    spec = parse_agent_spec(text)
    options = {**options, **({"temperature": None} if "null" in text else {})}
    assert (spec.name, spec.options) == (name, options)
    assert parse_agent_spec(spec.label) == spec


BAD = [
    ("", "is not an agent spec"),
    ("llm:model=a:temperature=0.2", "options go in brackets: llm[model=a,temperature=0.2]"),
    ("llm[model=a", "opens '[' without closing it"),
    ("llm[model=a]x", "has text after ']'"),
    ("llm[]", "has empty brackets"),
    ("llm[model]", "'model' in 'llm[model]' is not key=value"),
    ("llm[=a]", "is not key=value"),
    ("llm[model=]", "has no value after '='"),
    ("llm[model=a,model=b]", "gives 'model' twice"),
    ("llm[x=[1]]", "quote a value that holds one"),
    ("llm[model='a]", "lacks a closing '"),
    ("llm[x={a: 1}]", "x must be a single value"),
]


@pytest.mark.parametrize("text, says", BAD, ids=[b[0] or "''" for b in BAD])
def test_a_malformed_spec_names_itself_and_the_syntax(text, says):
    with pytest.raises(AgentSpecError) as caught:
        parse_agent_spec(text)
    assert says in str(caught.value)


def test_specs_split_at_commas_outside_brackets_and_quotes():
    text = "oracle, llm[model=a,history=2],llm[obs_parts='goal,url'] ,random"
    assert split_agent_specs(text) == [
        "oracle",
        "llm[model=a,history=2]",
        "llm[obs_parts='goal,url']",
        "random",
    ]
    with pytest.raises(AgentSpecError, match="closes ']' without opening it"):
        split_agent_specs("oracle],llm")


def test_the_label_leaves_out_prices_and_run_options_lose_to_the_agents_own():
    spec = parse_agent_spec("llm[model=a,price_prompt=1,price_completion=2]")
    assert spec.label == "llm[model=a]"
    assert spec.text == "llm[model=a,price_prompt=1,price_completion=2]"
    run: dict[str, Any] = {"model": "b", "history": 2, "seed": 1, "price_prompt": 5}
    assert spec.options_for_run(run, frozenset({"model", "history"})) == {
        "model": "a",
        "history": 2,
    }


def test_parse_option_reads_yaml_scalars():
    assert parse_option("max_tokens=500") == ("max_tokens", 500)
    assert parse_option("vision=false") == ("vision", False)
    assert parse_option("model=gpt:4") == ("model", "gpt:4")
    assert parse_option("day=2024-01-01") == ("day", "2024-01-01")  # not a date object


def test_load_agent_takes_a_spec_with_options():
    agent = load_agent("random[seed=5,done_prob=0.5]", done_prob=0.25)
    assert (agent.seed, agent.done_prob) == (5, 0.25)  # the call's options win


def test_an_identity_keeps_the_model_as_made_and_what_changes_how_the_agent_acts():
    class Made:
        model = "from-env"

    options = {"temperature": 0.2, "timeout_s": 90, "api_key": "sk", "sleep": print}
    identity = agent_identity("llm", options, Made())
    assert identity == {"agent": "llm", "model": "from-env", "options": {"temperature": 0.2}}
    assert identity_changes(identity, {**identity, "model": "other"}) == [
        "model 'from-env' -> 'other'"
    ]
    assert identity_changes(identity, {**identity, "options": {}}) == ["temperature 0.2 -> unset"]
    assert identity_changes(identity, dict(identity)) == []


def test_a_spec_is_a_frozen_model():
    spec = AgentSpec(name="llm", options={"model": "a"})
    with pytest.raises(ValueError):
        spec.name = "oracle"  # type: ignore[misc]
