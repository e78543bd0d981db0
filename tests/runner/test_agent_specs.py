"""A run's agent specs and options, checked before anything runs; a resumed run refuses an
agent that changed since its episodes were played (no browser: the results are written
by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webharness.errors import ConfigError, RunError
from webharness.reporting.costs import Price, PriceTable
from webharness.reporting.records import EvalAttempt
from webharness.runner import RunConfig, RunFolder, expand_jobs
from webharness.runner.agent_specs import agent_identities, made_with


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """An LLM agent can be made (it is never called here)."""
    monkeypatch.setenv("WEBHARNESS_LLM_API_KEY", "sk-test")
    monkeypatch.setenv("WEBHARNESS_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("WEBHARNESS_LLM_MODEL", "model-a")
    return monkeypatch


def test_specs_are_kept_as_they_read_back_and_jobs_carry_the_label(tmp_path: Path):
    config = RunConfig.checked(
        agents=["oracle", "llm[ model=a ]", "llm[model=b,price_prompt=1,price_completion=4]"],
        agent_options={"temperature": 0.2, "price_prompt": 0, "price_completion": 0},
        tasks=["form"],
    )
    assert config.agents == [
        "oracle",
        "llm[model=a]",
        "llm[model=b,price_prompt=1,price_completion=4]",
    ]
    jobs = expand_jobs(config, tmp_path)
    assert [j.agent for j in jobs] == ["oracle", "llm[model=a]", "llm[model=b]"]
    assert jobs[0].agent_options == {"temperature": 0.2}  # prices are not the agents'
    assert made_with("oracle", jobs[0].agent_options) == ("oracle", {})
    assert made_with("llm[model=b]", {"temperature": 0.2, "model": "x"}) == (
        "llm",
        {"temperature": 0.2, "model": "b"},
    )
    assert config.price_table() == PriceTable(
        agents={
            "oracle": Price(prompt=0, completion=0),
            "llm[model=a]": Price(prompt=0, completion=0),
            "llm[model=b]": Price(prompt=1, completion=4),
        }
    )


@pytest.mark.parametrize(
    "fields, field, says",
    [
        ({"agents": ["llm[modl=a]"]}, "agents", "has no option 'modl'. Did you mean: 'model'?"),
        ({"agents": ["oracle[seed=1]"]}, "agents", "agent 'oracle' has no option 'seed'"),
        (
            {"agents": ["llm[model=a]", "llm[model=a,price_prompt=1,price_completion=1]"]},
            "agents",
            "'llm[model=a]' is listed twice",
        ),
        ({"agents": ["llm[price_prompt=1]"]}, "agents", "give price_prompt and price_completion"),
        ({"agents": ["llm[price_prompt=x,price_completion=1]"]}, "agents", "each a number"),
        (
            {"agents": ["oracle"], "agent_options": {"seed": 1}},
            "agent_options",
            "no agent of the run takes 'seed'. oracle takes path_id",
        ),
        (
            {"agents": ["oracle", "random"], "agent_options": {"sed": 1}},
            "agent_options",
            "Did you mean: 'seed'?",
        ),
        (
            {"agents": ["oracle"], "agent_options": {"price_prompt": 1}},
            "agent_options",
            "give price_prompt and price_completion together",
        ),
    ],
)
def test_options_no_agent_takes_are_refused_naming_them(fields, field, says):
    with pytest.raises(ConfigError) as caught:
        RunConfig.checked(tasks=["form"], **fields)
    assert caught.value.field == field and says in caught.value.problem, caught.value


def test_an_option_some_agent_takes_is_passed_only_to_those_that_take_it():
    config = RunConfig.checked(agents=["oracle", "random"], agent_options={"seed": 4})
    assert made_with("oracle", config.agent_options) == ("oracle", {})
    assert made_with("random", config.agent_options) == ("random", {"seed": 4})


def test_identities_hold_the_model_as_made(llm_env: pytest.MonkeyPatch):
    identities = agent_identities(["oracle", "llm", "llm[model=b]"], {"timeout_s": 5})
    assert identities == {
        "oracle": {"agent": "oracle", "options": {}},
        "llm": {"agent": "llm", "model": "model-a", "options": {}},
        "llm[model=b]": {"agent": "llm", "model": "b", "options": {}},
    }


def test_an_option_value_the_agent_refuses_is_a_config_error_naming_it():
    with pytest.raises(ConfigError) as caught:
        agent_identities(["random[done_prob=2]"], {})
    assert caught.value.field == "agents"
    assert "cannot be made: done_prob=2 must be between 0 and 1" in caught.value.problem


def _played(folder: RunFolder, runner: str, model: str | None, seed: int = 0) -> None:
    folder.append(
        EvalAttempt(
            scenario_id="WebEval/form-v0",
            category="form",
            runner=runner,
            model=model,
            seed=seed,
            passed=False,
        )
    )


def test_a_resumed_run_refuses_a_changed_model_in_one_line(llm_env, tmp_path: Path):
    folder = RunFolder(tmp_path)
    config = RunConfig(agents=["oracle", "llm"], tasks=["form"])
    folder.prepare(config, 2)
    _played(folder, "llm", "model-a")
    llm_env.setenv("WEBHARNESS_LLM_MODEL", "model-b")
    manifest = folder.manifest.read_text()
    with pytest.raises(RunError) as caught:
        folder.prepare(config, 2)
    message = str(caught.value)
    assert "\n" not in message
    assert "agent 'llm' changed: model 'model-a' -> 'model-b'" in message
    assert "--agents 'llm[model=model-b]'" in message
    assert folder.manifest.read_text() == manifest  # nothing of the refused run is kept


def test_a_resumed_run_refuses_changed_options_but_not_operational_ones(llm_env, tmp_path: Path):
    folder = RunFolder(tmp_path)
    folder.prepare(RunConfig(agents=["llm"], tasks=["form"]), 1)
    _played(folder, "llm", "model-a")
    with pytest.raises(RunError, match="agent 'llm' changed: history unset -> 2"):
        folder.prepare(RunConfig(agents=["llm"], agent_options={"history": 2}), 1)
    longer = {"timeout_s": 120, "max_attempts": 8, "log_prompts": True}
    folder.prepare(RunConfig(agents=["llm"], agent_options=longer), 1)  # how, not what


def test_a_differently_labelled_agent_is_its_own_row_and_the_manifest_keeps_both(
    llm_env, tmp_path: Path
):
    folder = RunFolder(tmp_path)
    folder.prepare(RunConfig(agents=["llm"], tasks=["form"]), 1)
    _played(folder, "llm", "model-a")
    llm_env.setenv("WEBHARNESS_LLM_MODEL", "model-b")
    folder.prepare(RunConfig(agents=["llm[model=model-b]"], tasks=["form"]), 1)
    agents = json.loads(folder.manifest.read_text())["agents"]
    assert agents["llm"]["model"] == "model-a"
    assert agents["llm[model=model-b]"]["model"] == "model-b"


def test_a_manifest_without_identities_is_checked_against_the_results_models(
    llm_env, tmp_path: Path
):
    folder = RunFolder(tmp_path)
    folder.prepare(RunConfig(agents=["llm"], tasks=["form"]), 1)
    manifest = json.loads(folder.manifest.read_text())
    del manifest["agents"]  # as written before agents were described
    folder.manifest.write_text(json.dumps(manifest))
    _played(folder, "llm", "model-a")
    folder.prepare(RunConfig(agents=["llm"], tasks=["form"]), 1)
    llm_env.setenv("WEBHARNESS_LLM_MODEL", "model-b")
    with pytest.raises(RunError, match="model 'model-a' -> 'model-b'"):
        folder.prepare(RunConfig(agents=["llm"], tasks=["form"]), 1)


def test_prices_given_on_resume_add_to_the_earlier_ones(tmp_path: Path):
    folder = RunFolder(tmp_path)
    a, b = Price(prompt=1, completion=2), Price(prompt=3, completion=4)
    folder.prepare(RunConfig(agents=["oracle"], prices={"m-a": a}), 1)
    folder.prepare(RunConfig(agents=["oracle"], prices={"m-b": b}), 1)
    assert folder.price_table() == PriceTable(models={"m-a": a, "m-b": b})
    assert RunFolder(tmp_path / "none").price_table() == PriceTable()


class AnyOptions:
    """An agent that takes any option (``**options``)."""

    name = "any"

    def __init__(self, **options: object) -> None:
        self.options = options

    def reset(self, instance: object) -> None:
        pass

    def act(self, obs: object, info: object) -> str:
        return "done()"


def test_an_agent_that_takes_any_option_takes_run_options_but_not_half_a_price():
    spec = f"{__name__}:AnyOptions"
    config = RunConfig.checked(agents=[spec], agent_options={"anything": 1})
    assert made_with(spec, config.agent_options) == (spec, {"anything": 1})
    with pytest.raises(ConfigError, match="give price_prompt and price_completion together"):
        RunConfig.checked(agents=[spec], agent_options={"price_prompt": 1})
