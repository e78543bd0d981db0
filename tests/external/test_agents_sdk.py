"""An agent framework nobody here wrote: an OpenAI Agents SDK agent (its own MCP client),
run unchanged as an external process by ``webharness run --agents 'mcp[...]'``, its model
a scripted fake OpenAI server that reads what the agent sends and answers with tool calls.

- The golden behaviour passes every episode of the 12 built-in scenarios on seed 0 (one
  seed: the agent's process start and its model's turns dominate the suite's longest
  module; the faulty behaviours play seeds 0 and 1).
- Six faulty behaviours (false success, stale ref, repeated action, missing ask_user,
  wrong option, early give-up), each on two episodes where the scenarios allow, get the
  failure code, step and stage their DSL twins get through ``env.step`` (the faulty-agent
  suite's ``Bench``, scored as the runner scores).
- Through ``--llm-proxy``, each episode's tokens are what the fake server reported for
  that episode's requests, and they reach the results, ``summary.json`` and the report
  with their cost; the API key is written nowhere in the run folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_openai import FakeOpenAI
from tests.support.mcp_clients import oracle_runs, tool_calls
from tests.support.scripted_tool_model import Script, ScriptedToolModel, usage_of
from webharness.diagnosis.failures import FailureCode, Stage
from webharness.reporting.records import EvalAttempt, read_attempts
from webharness.spec.catalogue import full_env_id, task_names
from webharness.testing.fault_agent import Fault
from webharness.testing.faults import FAULTS
from webharness.testing.suite import Bench, Case

REPO = Path(__file__).resolve().parents[2]
SEEDS = (0, 1)  # the faulty behaviours' episodes
GOLDEN_SEED = 0
AGENT = f"{sys.executable} -m tests.support.agents_sdk_agent --model {{model}}"
KEY = "sk-fake-key-never-written-1f2e3d"
GIVE_UP = Fault(
    "early_give_up",
    FailureCode.TASK_INCOMPLETE,
    Stage.DECISION,
    lambda ctx: ["report_infeasible('The page does not let me do this.')"],
)
# Each faulty behaviour on its episodes (scenario, seed): the fault and the golden step
# it replaces, as the faulty-agent suite plays it.
FAULTY: dict[tuple[str, int], Case] = {
    ("form", 0): Case("form", FAULTS["quit_done"], 1),  # false success
    ("search", 1): Case("search", FAULTS["quit_done"], 1),
    ("shop", 0): Case("shop", FAULTS["stale_ref"], 3),  # a ref whose element was replaced
    ("navigate", 0): Case("navigate", FAULTS["stale_ref"], 2, "links"),
    ("form", 1): Case("form", FAULTS["repeat_heading"], 1),  # the same useless click
    ("search", 0): Case("search", FAULTS["repeat_heading"], 1),
    ("clarify", 0): Case("clarify", FAULTS["invent_phone"], 6, "ask-then-fill"),  # no ask_user
    ("navigate", 1): Case("navigate", FAULTS["wrong_choice"], 2, "links"),  # the wrong option
    ("shop", 1): Case("shop", GIVE_UP, 3),  # reports a feasible task infeasible
    ("clarify", 1): Case("clarify", GIVE_UP, 2, "ask-then-fill"),
}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fake_model(browser: None) -> Any:
    """The fake OpenAI server, with the golden script of every episode and each faulty
    episode's script: the DSL twin's actions, as tool calls. Yields it and the twins."""
    scripts: dict[str, dict[str, Script]] = {"golden": {}, "faulty": {}}
    goals = {}
    for name in task_names():
        for seed, (goal, actions) in oracle_runs(full_env_id(name), [GOLDEN_SEED]).items():
            calls = [("browser_snapshot", {}), *tool_calls(actions)]
            _add(scripts["golden"], goal, Script(calls, adapt=True))
            goals[full_env_id(name), seed] = goal
    twins = {}
    for seed in SEEDS:
        bench = Bench(seed=seed)
        try:
            for (name, at_seed), case in FAULTY.items():
                if at_seed == seed:
                    twin = twins[name, seed] = bench.run(case)
                    actions = [s.action for s in twin.trace.steps[1:] if s.action]
                    calls = [("browser_snapshot", {}), *tool_calls(actions)]
                    _add(scripts["faulty"], twin.trace.task.instruction, Script(calls))
        finally:
            bench.close()
    with FakeOpenAI() as server:
        server.responder = ScriptedToolModel(scripts)
        yield server, twins, goals


def _add(scripts: dict[str, Script], goal: str, script: Script) -> None:
    assert scripts.setdefault(goal, script) == script, f"two episodes share the goal {goal!r}"


def run_agent(
    model: str, tasks: list[str], seeds: str, server: FakeOpenAI, out: Path, proxy: bool = False
) -> list[EvalAttempt]:
    """``webharness run`` of the SDK agent on ``tasks`` x ``seeds``; its attempts. Its model
    is reached directly (``OPENAI_BASE_URL``), or through ``--llm-proxy`` and priced."""
    spec = f'mcp[command="{AGENT.format(model=model)}",timeout_s=240'
    spec += ",price_prompt=2.5,price_completion=10]" if proxy else "]"
    environment = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
    if proxy:
        environment["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"  # the proxy must replace it
    done = subprocess.run(
        [sys.executable, "-m", "webharness.cli", "run", "--agents", spec,
         "--tasks", ",".join(tasks), "--seeds", seeds, "--workers", "2", "--obs-mode", "text",
         "--out", str(out), *(["--llm-proxy", server.base_url] if proxy else [])],
        cwd=REPO, env=environment, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return read_attempts(out / "results.jsonl")


@pytest.fixture(scope="module")
def golden_run(fake_model: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    server, _, goals = fake_model
    out = tmp_path_factory.mktemp("golden")
    attempts = run_agent("golden", task_names(), str(GOLDEN_SEED), server, out, proxy=True)
    return {"attempts": attempts, "out": out, "server": server, "goals": goals}


def test_the_golden_behaviour_passes_every_episode(golden_run: dict[str, Any]) -> None:
    attempts = golden_run["attempts"]
    assert len(attempts) == len(task_names()) == 12
    failed = {(a.scenario_id, a.seed): a.failure_message for a in attempts if not a.passed}
    assert not failed
    assert sum(a.steps for a in attempts) >= 12 * 3  # every episode was played, step by step


def test_the_proxy_counts_what_the_model_reported_for_each_episode(
    golden_run: dict[str, Any],
) -> None:
    reported: dict[str, list[int]] = {}
    for request in golden_run["server"].requests:
        if request.body.get("model") == "golden":
            goal = next(m["content"] for m in request.body["messages"] if m["role"] == "user")
            usage = reported.setdefault(goal, [0, 0])
            for i, tokens in enumerate(usage_of(request.body["messages"])):
                usage[i] += tokens
            headers = {k.lower(): v for k, v in request.headers.items()}
            assert headers["authorization"] == f"Bearer {KEY}"  # passed through unchanged
    for a in golden_run["attempts"]:
        goal = golden_run["goals"][a.scenario_id, a.seed]
        assert [a.prompt_tokens, a.completion_tokens] == reported[goal], a.scenario_id
        assert a.model == "golden"  # as the agent's requests named it
        counted = json.loads((golden_run["out"] / a.trace_dir / "llm_usage.json").read_text())
        assert counted["uncounted"] == 0 and counted["requests"] > 0
    summary = json.loads((golden_run["out"] / "summary.json").read_text())
    usage = next(iter(summary["runners"].values()))["usage"]
    assert usage["prompt_tokens"] == sum(p for p, _ in reported.values())
    cost = (usage["prompt_tokens"] * 2.5 + usage["completion_tokens"] * 10) / 1e6
    assert usage["cost_usd"] == pytest.approx(cost)
    assert "## Tokens and cost" in (golden_run["out"] / "report.md").read_text()


def test_the_key_is_written_nowhere_in_the_run(golden_run: dict[str, Any]) -> None:
    for path in golden_run["out"].rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_faulty_behaviours_get_their_dsl_twins_diagnosis(fake_model: Any, tmp_path: Path) -> None:
    server, twins, _ = fake_model
    scenarios = sorted({name for name, _ in FAULTY})
    attempts = run_agent("faulty", scenarios, "0-1", server, tmp_path / "faulty")
    by_episode = {(a.scenario_id, a.seed): a for a in attempts}
    for (name, seed), twin in twins.items():
        attempt, dsl = by_episode[full_env_id(name), seed], twin.annotated
        got = (attempt.failure_code, attempt.failure_step, attempt.root_cause)
        want = (_value(dsl.code), dsl.step, _value(dsl.stage))
        assert got == want, f"{name} seed {seed} ({twin.case.fault.name}): {got} != {want}"
        assert attempt.false_success == dsl.false_success
        assert attempt.false_give_up == twin.failure.false_give_up
        assert attempt.steps == len(twin.trace.steps) - 1
    behaviours = {t.case.fault.name for t in twins.values()}
    assert len(behaviours) == 6 and all(not a.passed for a in attempts)


def _value(enum: Any) -> str | None:
    return enum.value if enum is not None else None
