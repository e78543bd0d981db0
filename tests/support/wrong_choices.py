"""A wrong choice saved on a page that then shows a required field nobody touched: the
fault, and the check that the diagnosis calls it a wrong choice (issue 41)."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym

from webharness.diagnosis.failures import FailureCode, FailureReport, Stage
from webharness.diagnosis.scoring import score_trace
from webharness.golden.play import play_episode
from webharness.testing import FaultyAgent
from webharness.testing.fault_agent import Fault, FaultContext, Planned
from webharness.testing.faults import wrong_option
from webharness.trace.models import EpisodeTrace

Plan = Callable[[FaultContext], list[Planned]]


def instead(name: str, plan: Plan) -> Fault:
    """A wrong choice in place of a golden step, the oracle playing on after it."""
    code, stage = FailureCode.TASK_INCOMPLETE, Stage.DECISION
    return Fault(name, code, stage, plan, then="oracle", replaces=True)


def other_option(*options: str) -> Plan:
    """The golden ``select_option`` with the first of ``options`` it does not pick."""
    return wrong_option(options)


def wrong_choice_saved(
    env: gym.Env, goldens: list[EpisodeTrace], plan: Plan, at: int, seed: int, untouched: str
) -> FailureReport:
    """Play the wrong choice at golden step ``at`` and the rest of the path; check that the
    page after the save shows the ``required`` combobox ``untouched`` with the browser's
    message on it, unflagged by the app, and that the diagnosis is ``task_incomplete`` at
    the choice, decision stage. Returns the diagnosis."""
    agent = FaultyAgent(instead("wrong_choice_saved", plan), at=at, env=env)
    trace = play_episode(env, agent, seed, screenshots=False)
    (field,) = trace.steps[-2].state.find("combobox", untouched)  # after the save
    assert field.required and field.validation_message and not field.invalid
    failure = score_trace(trace, goldens).failure
    expected = (FailureCode.TASK_INCOMPLETE, agent.expected_step(), Stage.DECISION)
    assert (failure.code, failure.step, failure.stage) == expected, failure.message
    return failure
