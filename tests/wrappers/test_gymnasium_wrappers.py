"""Gymnasium's standard wrappers under and over ours: any truncation (the env's own
``max_steps``, ``TimeLimit``, ``max_episode_steps``) ends an episode the same way for every
wrapper of ours (trace saved, alignment and failure computed)."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import pytest
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker, RecordEpisodeStatistics, TimeLimit

from webharness.diagnosis.failures import FailureCode
from webharness.trace.io import load_trace
from webharness.trace.models import EndedBy
from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment, RecordTrace

BUDGET = 3  # noop steps before the episode is cut


def ours(tmp_path) -> dict[str, Callable[[gym.Env], gym.Env]]:
    return {
        "RecordTrace": lambda env: RecordTrace(env, tmp_path / "traces", screenshots=False),
        "GoldenTraceAlignment": GoldenTraceAlignment,
        "FailureAnnotation": FailureAnnotation,
    }


STANDARD: dict[str, Callable[[gym.Env], gym.Env]] = {
    "TimeLimit": lambda env: TimeLimit(env, max_episode_steps=BUDGET),
    "RecordEpisodeStatistics": RecordEpisodeStatistics,
    "OrderEnforcing": OrderEnforcing,
    "PassiveEnvChecker": PassiveEnvChecker,
}


def play_noops(env: gym.Env) -> tuple[bool, bool, dict]:
    env.reset(seed=1)
    for _ in range(BUDGET + 1):
        _, _, terminated, truncated, info = env.step("noop()")
        if terminated or truncated:
            return terminated, truncated, info
    raise AssertionError(f"the episode was not cut after {BUDGET} steps")


def check_end(name: str, env: gym.Env, info: dict, tmp_path) -> None:
    assert info["episode_end"].truncated and info["episode_end"].ended_by == EndedBy.MAX_STEPS
    if name == "RecordTrace":
        (folder,) = (tmp_path / "traces").iterdir()
        trace = load_trace(folder)
        assert len(trace.steps) == BUDGET + 1 and trace.end.ended_by == EndedBy.MAX_STEPS
    elif name == "GoldenTraceAlignment":
        assert info["alignment"] is not None and info["alignment"].progress_rate < 1.0
    else:
        assert info["failure"].code == FailureCode.TASK_INCOMPLETE


# TimeLimit cuts the episode itself: each of ours, under it and over it. The other standard
# wrappers only pass the end through: our three at once, under them and over them.
STACKS = [
    ("TimeLimit", mine) for mine in ("RecordTrace", "GoldenTraceAlignment", "FailureAnnotation")
]
STACKS += [(standard, "all three") for standard in STANDARD if standard != "TimeLimit"]


@pytest.mark.parametrize(("standard", "wrapper"), STACKS)
@pytest.mark.parametrize("order", ["ours over standard", "standard over ours"])
def test_a_cut_episode_ends_the_same_way_under_and_over_gymnasiums_wrappers(
    browser, tmp_path, standard, wrapper, order
) -> None:
    # Without TimeLimit in the stack, the env's own max_steps cuts the episode.
    own_budget = {} if standard == "TimeLimit" else {"max_steps": BUDGET}
    env: gym.Env = gym.make(
        "WebEval/form-v0", obs_mode="text", disable_env_checker=True, **own_budget
    )
    theirs = STANDARD[standard]
    names = list(ours(tmp_path)) if wrapper == "all three" else [wrapper]

    def mine(inner: gym.Env) -> gym.Env:
        for name in names:
            inner = ours(tmp_path)[name](inner)
        return inner

    env = mine(theirs(env)) if order == "ours over standard" else theirs(mine(env))
    try:
        terminated, truncated, info = play_noops(env)
        assert truncated and not terminated
        if standard == "RecordEpisodeStatistics":
            assert info["episode"]["l"] == BUDGET
        for name in names:
            if standard == "TimeLimit" and order == "standard over ours":
                check_cut_outside(name, env, info, tmp_path)
            else:
                check_end(name, env, info, tmp_path)
    finally:
        env.close()


def check_cut_outside(name: str, env: gym.Env, info: dict, tmp_path) -> None:
    """A TimeLimit outside our wrapper cuts the episode where ours cannot see it (Gymnasium
    adds ``truncated`` after our step returned): ours keep what they saw as an episode cut
    short, as at any reset before the end. ``gym.make(..., max_episode_steps=N)`` puts the
    TimeLimit under ours."""
    assert "alignment" not in info and "failure" not in info
    if name == "RecordTrace":
        env.close()
        (folder,) = (tmp_path / "traces").iterdir()
        trace = load_trace(folder)
        assert len(trace.steps) == BUDGET + 1 and trace.end is None


def test_max_episode_steps_of_gym_make_cuts_the_episode_for_our_wrappers(browser) -> None:
    env = FailureAnnotation(
        GoldenTraceAlignment(gym.make("WebEval/form-v0", obs_mode="text", max_episode_steps=2))
    )
    try:
        env.reset(seed=0)
        env.step("noop()")
        _, _, terminated, truncated, info = env.step("noop()")
        assert truncated and not terminated
        assert info["failure"].code == FailureCode.TASK_INCOMPLETE and info["alignment"] is not None
    finally:
        env.close()
