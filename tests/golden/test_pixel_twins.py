"""Pixel twins match (issue #43): the oracle's pixel twin passes every seed the ref oracle
passes, aligned step for step with the ref golden traces; and a faulty pixel agent gets
the failure code, step (counted from the fault) and stage its ref twin gets, both played
through ``env.step`` and scored as the runner scores them (``score_trace`` against the
golden traces), or the documented pixel-specific code."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import pytest

from tests.support.registry import FIXTURES, registrations_undone
from tests.support.sites import site_spec
from tests.support.twins import (
    Plan,
    TwinAgent,
    by_name,
    click_at,
    empty_point,
    heading_ref,
    run_twin,
)
from webharness import register_tasks
from webharness.actions import ActionKind, parse_action
from webharness.diagnosis.failures import FailureCode as C
from webharness.diagnosis.failures import Stage as S
from webharness.diagnosis.scoring import score_trace
from webharness.envs import WebEvalEnv
from webharness.golden.oracle import OracleAgent
from webharness.golden.play import episode_spec, golden_traces, play_episode
from webharness.trace.models import EpisodeTrace

SEEDS = (0, 1)
SCENARIOS = ("async", "combobox", "dynamic", "form", "login", "navigate", "search", "shop")
SLOW = {"shop"}  # over 20 s: 2 seeds x 2 paths of a long checkout, by ref and as pixels
# What the pixel twin plays by ref: a native <select>'s option, and a key on a control a
# click would act on (golden/pixels.py).
_REF_KINDS_KEPT = {ActionKind.SELECT_OPTION, ActionKind.PRESS}
_REF_KINDS = {"click", "fill", "check", "uncheck", "hover", "drag_and_drop"}


def _check_pixel_twins(env: gym.Env) -> list[tuple[int, str]]:
    """Play each golden path's pixel twin on every seed its ref oracle passes; each must
    pass, with no ref action beyond the documented ones, its run aligned with the ref
    golden traces to the end, with the step notes the ref oracle's run gets (their codes).
    Returns the (seed, path) pairs played."""
    played = []
    for seed in SEEDS:
        goldens = golden_traces(env, seed, screenshots=False)
        for golden in (g for g in goldens if g.end is not None and g.end.success):
            oracle = OracleAgent(golden.golden_path, pixels=True)
            twin = play_episode(env, oracle, seed, screenshots=False)
            score = score_trace(twin, goldens, spec=episode_spec(env))
            where = (seed, golden.golden_path, twin.actions)
            assert twin.end is not None and twin.end.success, where
            ref_notes = score_trace(golden, goldens, spec=episode_spec(env)).failure.step_notes
            assert score.failure.passed, (where, score.failure)
            assert _codes(score.failure.step_notes) == _codes(ref_notes), where
            assert score.alignment is not None and score.alignment.progress_rate == 1.0, where
            assert not _ref_actions(twin) - {k.value for k in _REF_KINDS_KEPT}, where
            played.append((seed, str(golden.golden_path)))
    return played


def _codes(notes: list[Any]) -> list[C]:
    return [n.code for n in notes]


def _ref_actions(trace: EpisodeTrace) -> set[str]:
    kinds = {parse_action(a).kind for a in trace.actions}
    return kinds & (_REF_KINDS | {k.value for k in _REF_KINDS_KEPT})


@pytest.mark.parametrize(
    "scenario", [pytest.param(s, marks=pytest.mark.slow) if s in SLOW else s for s in SCENARIOS]
)
def test_the_oracles_pixel_twin_passes_where_the_ref_oracle_passes(make_env, scenario):
    env = make_env(f"WebEval/{scenario}-v0", obs_mode="text")
    assert _check_pixel_twins(env)


@pytest.fixture
def chores(browser: None) -> Iterator[gym.Env]:
    with registrations_undone():
        register_tasks(FIXTURES / "chores_app_task", "Twin")
        env = gym.make("Twin/chores_own_app-v0", obs_mode="text")
        try:
            yield env
        finally:
            env.close()


@pytest.mark.slow
def test_the_pixel_twin_passes_on_the_chores_app(chores):
    assert _check_pixel_twins(chores)


# --- faulty twins ---------------------------------------------------------------------
TWIN_SITE: dict[str, dict[str, Any]] = {
    "label": {  # the checkbox's visible label is a <span>, no <label>: a click there is lost
        "success": {
            "kind": "element",
            "role": "checkbox",
            "name": "Email me about replies",
            "checked": True,
        },
        "golden_paths": [
            {
                "id": "tick",
                "steps": [
                    {
                        "action": "check",
                        "target": {"role": "checkbox", "name": "Email me about replies"},
                    },
                    {"action": "done"},
                ],
            }
        ],
    },
    "double": {  # the draft is renamed on a double click; no golden step writes one
        "success": {"kind": "text", "text": "Renaming"},
        "golden_paths": [{"id": "open", "steps": [{"action": "done"}]}],
    },
    "drag": {  # the card must be dropped on the zone; no golden step writes a drag
        "success": {"kind": "text", "text": "Dropped: card"},
        "golden_paths": [{"id": "drop", "steps": [{"action": "done"}]}],
    },
    "covered": {  # a veil lies over the Send button
        "success": {"kind": "text", "text": "Sent"},
        "golden_paths": [{"id": "send", "steps": [{"action": "done"}]}],
    },
    "stale": {  # every click re-renders the list: a notice comes in above the buttons
        "success": {"kind": "text", "text": "Approved"},
        "golden_paths": [
            {
                "id": "approve",
                "steps": [
                    {"action": "click", "target": {"role": "button", "name": "Add notice"}},
                    {"action": "click", "target": {"role": "button", "name": "Approve"}},
                    {"action": "done"},
                ],
            }
        ],
    },
}
SCORED = {"label", "stale"}  # the twin-site tasks whose golden path can be written


@dataclass(frozen=True)
class TwinCase:
    name: str
    task: str  # a built-in scenario, or a task of TWIN_SITE
    at: int  # the golden step replaced
    ref: Plan
    pixel: Plan
    expected: tuple[C, S]
    pixel_code: C | None = None  # the documented pixel-specific code, when it differs


def _old(agent: TwinAgent, role: str, name: str) -> Any:
    """The element as the observation before the last one showed it."""
    return by_name(agent.states[-2], role, name)


CASES = [
    TwinCase(
        "click_on_empty_space",
        "form",
        1,
        lambda a: [f"click({heading_ref(a)!r})"],
        lambda a: [empty_point(a.state)],
        (C.ACTION_NO_EFFECT, S.PERCEPTION),
    ),
    TwinCase(
        "point_off_the_viewport",
        "form",
        1,
        lambda a: ['click("e99999")'],
        lambda a: ["mouse_click(5000, 100)"],
        (C.OBSERVATION_MISS, S.PERCEPTION),
    ),
    TwinCase(
        "repeated_click",
        "login",
        1,
        lambda a: [f"click({heading_ref(a)!r})"] * 3,
        lambda a: [empty_point(a.state)] * 3,
        (C.REPEATED_ACTION, S.DECISION),
    ),
    TwinCase(
        "false_success",
        "form",
        4,
        lambda a: ["done()"],
        lambda a: ["done()"],
        (C.TASK_INCOMPLETE, S.DECISION),
    ),
    TwinCase(
        "scroll_never_reaches",
        "shop",
        2,
        lambda a: ["scroll(0, -300)"] * 2,
        lambda a: ["scroll(0, -300, x=640, y=360)"] * 2,
        (C.TASK_INCOMPLETE, S.DECISION),
    ),
    TwinCase(
        "label_not_its_control",
        "label",
        1,
        lambda a: [f"click({by_name_node(a, 'Notifications')!r})"],
        lambda a: ["mouse_click(60, 80)"],
        (C.ACTION_NO_EFFECT, S.PERCEPTION),
    ),
    TwinCase(
        "single_click_for_a_double",
        "double",
        1,
        lambda a: [f"click({by_name(a.state, 'button', 'Draft name').ref!r})"],
        lambda a: [click_at(by_name(a.state, "button", "Draft name"))],
        (C.ACTION_NO_EFFECT, S.EXECUTION),
    ),
    TwinCase(
        "drag_dropped_short",
        "drag",
        1,
        lambda a: [
            f"drag_and_drop({by_name(a.state, 'button', 'Card').ref!r}, "
            f"{by_name(a.state, 'button', 'Draft name').ref!r})"
        ],
        lambda a: ["drag([(60, 200), (300, 230)])"],
        (C.ACTION_NO_EFFECT, S.EXECUTION),
    ),
    TwinCase(
        "click_on_a_covered_control",
        "covered",
        1,
        lambda a: [f"click({by_name(a.state, 'button', 'Send').ref!r})"],
        lambda a: [click_at(by_name(a.state, "button", "Send"))],
        (C.ACTION_NO_EFFECT, S.EXECUTION),
    ),
    TwinCase(
        "stale_point_after_the_layout_moved",
        "stale",
        2,
        lambda a: [f"click({_old(a, 'button', 'Approve').ref!r})"],
        lambda a: [click_at(_old(a, "button", "Approve"))],
        (C.STALE_INDEX, S.PERCEPTION),
    ),
]


def by_name_node(agent: TwinAgent, name: str) -> str:
    """The ref the accessibility tree gives a region (no control: not in the state)."""
    lines = agent.obs["axtree"].splitlines()
    line = next(text for text in lines if f'region "{name}"' in text)
    return line.split("[ref=")[1].split("]")[0]


@pytest.fixture(scope="module")
def twin_envs(browser: None) -> Iterator[dict[str, gym.Env]]:
    envs: dict[str, gym.Env] = {}
    yield envs
    for env in envs.values():
        env.close()


def _env(envs: dict[str, gym.Env], task: str) -> gym.Env:
    if task not in envs:
        envs[task] = (
            WebEvalEnv(site_spec("twin_site", max_steps=12, **TWIN_SITE[task]), obs_mode="text")
            if task in TWIN_SITE
            else gym.make(f"WebEval/{task}-v0", obs_mode="text")
        )
    return envs[task]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_faulty_pixel_agent_is_diagnosed_as_its_ref_twin(twin_envs, case):
    env = _env(twin_envs, case.task)
    scored = case.task not in TWIN_SITE or case.task in SCORED
    goldens = golden_traces(env, 0, screenshots=False) if scored else []
    ref = run_twin(env, TwinAgent(False, case.at, case.ref), 0, goldens)
    pixel = run_twin(env, TwinAgent(True, case.at, case.pixel), 0, goldens)
    code, offset, stage, false_success = ref.verdict
    assert (code, stage) == case.expected, (ref.failure, ref.trace.actions)
    expected_pixel = (case.pixel_code or code, offset, stage, false_success)
    assert pixel.verdict == expected_pixel, (pixel.failure, pixel.trace.actions)
    pointer = pixel.failure.evidence.pointer
    if case.task == "covered":  # the evidence says what took the click
        assert pointer is not None and pointer.name == "Send" and pointer.covered_by == "div"
