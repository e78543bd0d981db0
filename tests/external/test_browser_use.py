"""browser-use itself as an external agent that drives its own browser, in ``webharness run
--agents 'cdp[command=...]'``: its model is a scripted fake OpenAI server
(``tests.support.browser_use_model``) that reads the page browser-use sends it.

Played golden, it passes the built-in scenarios of ``TASKS`` and the chores app (a task
folder whose app the env starts) on seed 1, its trace aligned with the golden path step
for step (one seed: browser-use's ~10 s start per episode made this the suite's longest
module; the faults play seed 0). Played wrong on form-v0, seed 0 (and on dynamic-v0 for a
stale element), each fault gets the failure code, stage and step of its DSL twin
(``replay_agent``) in the same run, or the difference written in ``DIFFERENCES``. Its
navigation to an origin the task does not allow is refused, and nothing it does reaches
beyond 127.0.0.1: the server that its HTTP proxy names, the navigation's target, receives
nothing.

browser-use runs in a virtualenv of its own, ``.venv-browser-use``, which
``scripts/setup_browser_use.sh`` (part of ``scripts/setup.sh``) installs.
"""

from __future__ import annotations

import http.server
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from tests.support.agent_runs import run_agents
from tests.support.browser_use_model import FAULTS, BrowserUseModel, plan_of
from tests.support.fake_openai import FakeOpenAI
from tests.support.mcp_clients import oracle_actions
from tests.support.static_server import serving_with

REPO = Path(__file__).resolve().parents[2]
PYTHON = REPO / ".venv-browser-use" / "bin" / "python"
CHORES_APP = REPO / "tests" / "fixtures" / "chores_app_task"  # an app the env starts itself
TASKS = ["form", "search", "stats", "dynamic", "login", "combobox", str(CHORES_APP)]
GOLDEN_SEED = 1
FAULT_TASK, FAULT_SEED = "form", 0
STALE_TASK = "dynamic"  # its sort re-renders every row: a row's button seen before it is gone
RUN_TIMEOUT_S = 600
AGENT_TIMEOUT_S = 150  # one episode of browser-use, its start (~10 s of imports) included
# Where browser-use's diagnosis differs from its DSL twin's, and why (docs/own-browser.md):
# stale: browser-use's index is the element's DOM node id, looked up among the elements of
# the page as it last read it; an element re-rendered since is not among them, and
# browser-use answers "Element index N not available - page may have changed" without
# sending the page anything. So it is no step of the trace (the twin's click on a stale ref
# is one, refused by the env), and the episode fails for its claim: its failure step has
# the twin's number, but there it is the claim, where the twin's is the refused click.
DIFFERENCES = {"stale": {"failure_code": "task_incomplete", "root_cause": "decision"}}

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # three runs of browser-use processes


@dataclass
class Offsite:
    """A server on another port of 127.0.0.1, which no task allows, logging every request
    it gets: the ``offsite`` fault navigates to it, and the agent processes' HTTP proxy
    points at it, so any request browser-use made beyond 127.0.0.1 would reach it."""

    origin: str
    hits: list[str]


def agent(model: str, offsite: Offsite) -> str:
    """The ``cdp[...]`` spec of browser-use played by ``model``."""
    trap = " ".join(
        f"{name}={offsite.origin}" for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
    )
    command = (
        f"env {trap} NO_PROXY=127.0.0.1,localhost {PYTHON} -m tests.support.browser_use_agent"
        f" --cdp {{cdp_url}} --goal {{goal}} --model {model}"
    )
    return f'cdp[command="{command}",timeout_s={AGENT_TIMEOUT_S}]'


@pytest.fixture(scope="module")
def offsite() -> Iterator[Offsite]:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            hits.append(f"{self.command} {self.path}")
            self.send_response(403)
            self.end_headers()

        do_POST = do_CONNECT = do_HEAD = do_GET  # noqa: N815

        def log_message(self, *args: object) -> None:
            pass

    with serving_with(Handler) as origin:
        yield Offsite(origin, hits)


@pytest.fixture(scope="module")
def model(offsite: Offsite) -> Iterator[FakeOpenAI]:
    if not PYTHON.exists():
        pytest.fail(f"browser-use is not installed in {PYTHON.parent.parent}: run scripts/setup.sh")
    plans = dict(plan_of(task, GOLDEN_SEED) for task in TASKS)
    plans |= dict(plan_of(task, FAULT_SEED) for task in (FAULT_TASK, STALE_TASK))
    with FakeOpenAI() as server:
        server.responder = BrowserUseModel(plans, offsite=f"{offsite.origin}/")
        yield server


def run(
    agents: dict[str, str], tasks: list[str], seeds: str, out: Path, llm: str
) -> dict[str, list[Any]]:
    """One ``webharness run`` of ``agents`` through the LLM proxy; their attempts by name."""
    return run_agents(agents, tasks, seeds, out, "--llm-proxy", llm, timeout_s=RUN_TIMEOUT_S)


CLAIM = "send_msg_to_user('Saved it.')"


def states(task: str, actions: list[str]) -> list[Any]:
    """The semantic states of ``task`` on ``FAULT_SEED``: after the reset and each action."""
    env = gym.make(f"WebEval/{task}-v0", obs_mode="text")
    try:
        found = [env.reset(seed=FAULT_SEED)[1]["semantic_state"]]
        return found + [env.step(action)[4]["semantic_state"] for action in actions]
    finally:
        env.close()


def last_click(golden: list[str]) -> int:
    return max(i for i, a in enumerate(golden) if a.startswith("click("))


def twins(offsite: str) -> dict[str, list[str]]:
    """The DSL actions that make each fault's moves on ``FAULT_TASK``, ``FAULT_SEED``."""
    golden = oracle_actions(f"WebEval/{FAULT_TASK}-v0", FAULT_SEED)
    cancel = states(FAULT_TASK, golden[:1])[1].find("button", "Cancel")[0].ref
    save, claim = last_click(golden), CLAIM
    return {
        "no_save": [*golden[:save], claim],
        "wrong_element": [*golden[:save], f"click({cancel!r})", claim],
        "repeat": [golden[0], golden[save], golden[save], golden[save], claim],
        "early_stop": [*golden[:2], "send_msg_to_user('I could not finish the task.')"],
        "offsite": [f"goto({offsite!r})", claim],
    }


def stale_twin() -> list[str]:
    """The ``stale`` fault's DSL actions on ``STALE_TASK``: its last click on the ref its
    target had in the first observation, before the moves before it re-rendered it."""
    golden = oracle_actions(f"WebEval/{STALE_TASK}-v0", FAULT_SEED)
    click = last_click(golden)
    seen = states(STALE_TASK, golden[:click])
    ref = golden[click].split("'")[1]
    (target,) = [e for e in seen[-1].elements if e.ref == ref]
    (first,) = seen[0].find(target.role, target.name)
    assert first.ref != ref, "the target was not re-rendered: its first ref is not stale"
    return [*golden[:click], f"click({first.ref!r})", CLAIM]


@pytest.fixture(scope="module")
def faults(
    browser: None,
    model: FakeOpenAI,
    offsite: Offsite,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, list[Any]]:
    """browser-use played with each fault, beside its DSL twin: one run on ``FAULT_TASK``,
    one of the ``stale`` fault on ``STALE_TASK``."""
    folder = tmp_path_factory.mktemp("browser_use")
    runs = {FAULT_TASK: twins(f"{offsite.origin}/"), STALE_TASK: {"stale": stale_twin()}}
    found: dict[str, list[Any]] = {}
    for task, faults in runs.items():
        agents = {}
        for fault, actions in faults.items():
            path = folder / f"{fault}.json"
            path.write_text(json.dumps(actions))
            agents[fault] = agent(fault, offsite)
            agents[f"{fault}_dsl"] = f"tests.support.replay_agent:ReplayAgent[actions_file={path}]"
        found |= run(agents, [task], str(FAULT_SEED), folder / task, model.base_url)
    return found


@pytest.fixture(scope="module")
def golden(
    browser: None, model: FakeOpenAI, offsite: Offsite, tmp_path_factory: pytest.TempPathFactory
) -> list[Any]:
    out = tmp_path_factory.mktemp("browser_use") / "golden"
    agents = {"golden": agent("golden", offsite)}
    return run(agents, TASKS, str(GOLDEN_SEED), out, model.base_url)["golden"]


def test_browser_use_played_golden_passes_every_scenario_and_seed(golden: list[Any]) -> None:
    assert len(golden) == len(TASKS)
    failed = [
        (a.scenario_id, a.seed, a.failure_code, a.failure_message) for a in golden if not a.passed
    ]
    assert not failed


def test_its_trace_follows_the_golden_path_step_for_step(golden: list[Any]) -> None:
    """Its own scripts (the overlays it draws) are no steps; each script that changes the
    page is one (search's two selects, two steps). A trace may leave the alignment at its
    last step, the answer (seen once in three runs, form seed 0, under load; not pinned
    down)."""
    diverged = {
        (a.scenario_id, a.seed, a.first_divergence_step)
        for a in golden
        if a.first_divergence_step is not None and a.first_divergence_step < a.steps
    }
    assert diverged == set()


def test_its_final_result_and_its_models_tokens_are_recorded(golden: list[Any]) -> None:
    for attempt in golden:  # its printed last line; its requests, through --llm-proxy
        assert attempt.ended_by == "send_msg_to_user" and attempt.prompt_tokens > 0


@pytest.mark.parametrize("fault", FAULTS)
def test_a_faulty_browser_use_gets_its_dsl_twins_diagnosis(
    faults: dict[str, list[Any]], fault: str
) -> None:
    (mine,), (twin,) = faults[fault], faults[f"{fault}_dsl"]
    assert not mine.passed and not mine.not_executable
    keys = ("failure_code", "root_cause", "failure_step", "false_success", "ended_by")
    theirs = {k: getattr(twin, k) for k in keys} | DIFFERENCES.get(fault, {})
    assert {k: getattr(mine, k) for k in keys} == theirs


def test_nothing_it_does_reaches_beyond_the_episode(
    golden: list[Any], faults: dict[str, list[Any]], offsite: Offsite
) -> None:
    """Its navigation to another origin is refused, and neither it nor browser-use's own
    calls home (telemetry, version check, pricing) reach the server the proxy names."""
    assert golden and faults["offsite"] and offsite.hits == []
