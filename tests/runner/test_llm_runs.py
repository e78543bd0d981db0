"""LLM agents in real runs, against the fake OpenAI-compatible server: two models side by
side as two rows with their tokens, retries and costs; a resumed run that would mix models
in one row is refused, and a differently labelled agent runs as its own row."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_openai import FakeOpenAI, Reply, completion, error
from webharness.cli import main
from webharness.runner import RunConfig, RunFolder, prepare_run, report_run, run_jobs

TOKENS = {"model-a": (1000, 20), "model-b": (500, 10)}  # prompt, completion per request


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """The fake server, answering done() with each model's own token counts."""
    monkeypatch.setenv("WEBHARNESS_LLM_API_KEY", "sk-test")
    monkeypatch.delenv("WEBHARNESS_LLM_MODEL", raising=False)

    def answer(body: dict[str, Any]) -> Reply:
        return completion("done()", *TOKENS[body["model"]])

    with FakeOpenAI() as fake:
        fake.responder = answer
        monkeypatch.setenv("WEBHARNESS_LLM_BASE_URL", fake.base_url)
        yield fake


def _run(run_dir: Path, **fields: Any) -> None:
    config = RunConfig.checked(
        tasks=["form"], seeds=[0], obs_mode="text", screenshots=False, **fields
    )
    run_jobs(prepare_run(config, run_dir, resume=False), config, run_dir)


def test_two_models_in_one_run_are_two_rows_with_their_tokens_retries_and_costs(
    browser, server, tmp_path
):
    server.script(error(500, "overloaded"))  # model-a's first request: retried once
    _run(
        tmp_path,
        agents=["llm[model=model-a]", "llm[model=model-b,price_prompt=1,price_completion=2]"],
        prices={"model-a": {"prompt": 2.5, "completion": 10}},
    )
    attempts = {a.runner: a for a in RunFolder(tmp_path).read_attempts()}
    assert sorted(attempts) == ["llm[model=model-a]", "llm[model=model-b]"]
    a, b = attempts["llm[model=model-a]"], attempts["llm[model=model-b]"]
    assert (a.model, a.prompt_tokens, a.completion_tokens, a.retries) == ("model-a", 1000, 20, 1)
    assert (b.model, b.prompt_tokens, b.completion_tokens, b.retries) == ("model-b", 500, 10, 0)
    assert [body["model"] for body in server.bodies()] == ["model-a", "model-a", "model-b"]

    paths = report_run(tmp_path)
    summary = json.loads(paths["json"].read_text())
    cost_a, cost_b = (1000 * 2.5 + 20 * 10) / 1e6, (500 * 1 + 10 * 2) / 1e6
    usage = {name: g["usage"] for name, g in summary["runners"].items()}
    assert usage["llm[model=model-a]"]["cost_usd"] == pytest.approx(cost_a)
    assert usage["llm[model=model-b]"]["cost_usd"] == pytest.approx(cost_b)
    assert summary["overall"]["usage"]["prompt_tokens"] == 1500
    by_task = summary["runners"]["llm[model=model-b]"]["usage_by_task"]["WebEval/form-v0"]
    assert by_task["cost_per_episode_usd"] == pytest.approx(cost_b)
    markdown = paths["markdown"].read_text()
    assert "| llm[model=model-a] | 1 | 1,000 | 20 | $0.0027 | $0.0027 |" in markdown
    assert "| llm[model=model-b] | 1 | 500 | 10 | $0.00052 | $0.00052 |" in markdown
    html = paths["html"].read_text()
    assert '<td class="l">llm[model=model-a]</td><td>1</td><td>1,000</td><td>20</td>' in html
    assert "1,020 tokens, $0.0027 · 1 retry" in html  # the episode's own line


def test_resume_refuses_another_model_for_the_same_row_and_runs_a_new_label_apart(
    browser, server, tmp_path, monkeypatch, capsys
):
    out = tmp_path / "run"
    base = ["run", "--tasks", "form", "--obs-mode", "text", "--no-screenshots", "--out", str(out)]
    assert main([*base, "--agents", "llm", "--agent-option", "model=model-a", "--seeds", "0"]) == 0
    before = RunFolder(out).results.read_text()
    capsys.readouterr()

    changed = [*base, "--agents", "llm", "--seeds", "0-1", "--resume"]
    assert main([*changed, "--agent-option", "model=model-b"]) == 2
    monkeypatch.setenv("WEBHARNESS_LLM_MODEL", "model-b")  # the same change, from the env
    assert main(changed) == 2
    _, err = capsys.readouterr()
    lines = err.splitlines()
    assert len(lines) == 2 and all(line.startswith("webharness: --resume: ") for line in lines)
    assert all("agent 'llm' changed: model 'model-a' -> 'model-b'" in line for line in lines)
    assert RunFolder(out).results.read_text() == before  # nothing was played

    prices = tmp_path / "prices.yaml"
    prices.write_text("model-b: {prompt: 1, completion: 2}\n")
    apart = [*base, "--agents", "llm[model=model-b]", "--seeds", "0", "--resume"]
    assert main([*apart, "--prices", str(prices)]) == 0
    rows = [(a.runner, a.model) for a in RunFolder(out).read_attempts()]
    assert rows == [("llm", "model-a"), ("llm[model=model-b]", "model-b")]
    table = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in table[2:5]] == ["llm", "llm[model=model-b]", "all"]
    assert table[0].split()[-3:] == ["tokens", "in/out", "cost"]
    assert table[2].split()[-3:] == ["1,000/20", "no", "price"]
    assert table[3].split()[-2:] == ["500/10", "$0.00052"]
