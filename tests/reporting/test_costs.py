"""Tokens and costs: the price table, usage per agent and per task, and how the reports
and the terminal table show them (a model with no price shows tokens and "no price")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webharness.reporting.costs import (
    Price,
    PriceError,
    PriceTable,
    episode_cost,
    load_prices,
    usage,
)
from webharness.reporting.records import EvalAttempt
from webharness.reporting.render import format_summary_table, write_report
from webharness.reporting.summary import summarize

PRICES = PriceTable(models={"model-a": Price(prompt=2.5, completion=10.0)})


def attempt(**fields: Any) -> EvalAttempt:
    base: dict[str, Any] = dict(
        scenario_id="WebEval/form-v0", category="form", runner="agent", seed=0, passed=True
    )
    return EvalAttempt(**{**base, **fields})


def llm(model: str, task: str = "form", prompt: int = 1000, completion: int = 20) -> EvalAttempt:
    return attempt(
        runner=f"llm[model={model}]",
        model=model,
        scenario_id=f"WebEval/{task}-v0",
        category=task,
        prompt_tokens=prompt,
        completion_tokens=completion,
    )


def test_an_episode_costs_its_tokens_at_its_models_price_per_million():
    assert episode_cost(llm("model-a"), PRICES) == pytest.approx((1000 * 2.5 + 20 * 10) / 1e6)


def test_tokens_with_no_price_have_no_cost_and_no_total_includes_them():
    assert episode_cost(llm("model-b"), PRICES) is None
    mixed = usage([llm("model-a"), llm("model-b")], PRICES)
    assert (mixed.prompt_tokens, mixed.completion_tokens) == (2000, 40)
    assert mixed.cost_usd is None and mixed.cost_per_episode_usd is None
    assert mixed.unpriced == ["model-b"]


def test_an_episode_that_spent_no_tokens_costs_nothing_without_a_price():
    assert episode_cost(attempt(runner="oracle"), PriceTable()) == 0.0
    assert usage([attempt(runner="oracle")], PriceTable()).cost_usd == 0.0


def test_an_agents_own_price_wins_over_its_models():
    own = PriceTable(
        models=PRICES.models, agents={"llm[model=model-a]": Price(prompt=1, completion=0)}
    )
    assert episode_cost(llm("model-a"), own) == pytest.approx(0.001)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_prices_file_maps_models_to_prices(tmp_path: Path, suffix: str):
    path = tmp_path / f"prices{suffix}"
    table = {"model-a": {"prompt": 2.5, "completion": 10}, "free": {"prompt": 0, "completion": 0}}
    path.write_text(json.dumps(table))  # JSON is YAML too
    assert load_prices(path) == {
        "model-a": Price(prompt=2.5, completion=10.0),
        "free": Price(prompt=0, completion=0),
    }


@pytest.mark.parametrize(
    "text, says",
    [
        ("[1, 2]", "must map model names to prices"),
        ("", "must map model names to prices"),
        ("m: {prompt: 1}", "m.completion: field required"),
        ("m: {prompt: -1, completion: 1}", "m.prompt: input should be greater than or equal to 0"),
        ("m: {prompt: x, completion: 1}", "m.prompt: input should be a valid number"),
        ("m: {prompt: 1, completion: 1, cached: 0.5}", "m.cached: extra inputs are not permitted"),
        ("m: 3", "m: input should be a valid dictionary"),
        ("m: {prompt: .nan, completion: 1}", "m.prompt: input should be a finite number"),
        ("m: [unclosed", "cannot be read"),
    ],
)
def test_a_bad_prices_file_names_the_model_and_the_field(tmp_path: Path, text: str, says: str):
    path = tmp_path / "prices.yaml"
    path.write_text(text)
    with pytest.raises(PriceError) as caught:
        load_prices(path)
    assert says in str(caught.value), caught.value


def test_usage_is_summed_per_runner_and_per_task():
    runs = [llm("model-a"), llm("model-a", task="stats", prompt=3000), llm("model-b")]
    summary = summarize([*runs, attempt(runner="oracle")], PRICES)
    a = summary.runners["llm[model=model-a]"]
    assert (a.usage.episodes, a.usage.prompt_tokens, a.usage.completion_tokens) == (2, 4000, 40)
    assert a.usage.cost_usd == pytest.approx((4000 * 2.5 + 40 * 10) / 1e6)
    assert a.usage.cost_per_episode_usd == pytest.approx(a.usage.cost_usd / 2)
    assert a.usage_by_task["WebEval/stats-v0"].cost_usd == pytest.approx((3000 * 2.5 + 200) / 1e6)
    b = summary.runners["llm[model=model-b]"]
    assert b.usage.prompt_tokens == 1000 and b.usage.cost_usd is None
    assert summary.runners["oracle"].usage.cost_usd == 0.0
    assert summary.overall.usage.cost_usd is None  # model-b's tokens are in it
    assert summary.prices == PRICES


def test_reports_show_tokens_costs_and_no_price(tmp_path: Path):
    runs = [llm("model-a"), llm("model-b", prompt=500), attempt(runner="oracle")]
    paths = write_report(tmp_path, runs, summarize(runs, PRICES))
    saved = json.loads(paths["json"].read_text())
    assert saved["runners"]["llm[model=model-a]"]["usage"]["cost_usd"] == pytest.approx(0.0027)
    assert saved["runners"]["llm[model=model-b]"]["usage"]["cost_usd"] is None
    assert saved["prices"]["models"]["model-a"] == {"prompt": 2.5, "completion": 10.0}
    markdown = paths["markdown"].read_text()
    assert "| llm[model=model-a] | 1 | 1,000 | 20 | $0.0027 | $0.0027 |" in markdown
    assert "| llm[model=model-b] | 1 | 500 | 20 | no price | no price |" in markdown
    assert "| WebEval/form-v0 | $0.0027 (1,020) | no price (520) | – (0) |" in markdown
    assert "model-a: $2.5 / $10" in markdown
    html = paths["html"].read_text()
    assert "<td>1,000</td><td>20</td><td>$0.0027</td>" in html
    assert "<td>500</td><td>20</td><td>no price</td>" in html


def test_reports_leave_out_tokens_when_no_agent_spent_any(tmp_path: Path):
    paths = write_report(tmp_path, [attempt(runner="oracle")])
    assert "Tokens and cost" not in paths["markdown"].read_text()
    assert "Tokens and cost" not in paths["html"].read_text()


def test_the_closing_table_adds_tokens_and_cost_when_tokens_were_spent():
    runs = [llm("model-a"), llm("model-b", prompt=500), attempt(runner="oracle")]
    lines = format_summary_table(summarize(runs, PRICES)).splitlines()
    assert lines[0].split()[-3:] == ["tokens", "in/out", "cost"]
    row = {line.split()[0]: line.split() for line in lines[2:]}
    assert row["llm[model=model-a]"][-2:] == ["1,000/20", "$0.0027"]
    assert row["llm[model=model-b]"][-3:] == ["500/20", "no", "price"]
    assert row["all"][-3:] == ["1,500/40", "no", "price"]
    assert row["oracle"][-2:] == ["0/0", "–"]
    assert "cost" not in format_summary_table(summarize([attempt(runner="oracle")]))
