"""Soak: 2,000 random and hostile steps over every scenario and perturbation, with small
bounds (action 2 s, settle 1.5 s), played by two threads over one shared browser. Nothing
escapes, no step outlasts its bound + 1 s, no Chromium is left, memory stays flat. The long
version is ``benchmarks/soak.py``."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

import webharness
from webharness.perturbations import PERTURBATIONS

pytestmark = pytest.mark.own_browser  # counts browser processes

_SPEC = importlib.util.spec_from_file_location(
    "soak", Path(__file__).parents[2] / "benchmarks" / "soak.py"
)
soak = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = soak  # dataclasses look their module up there
_SPEC.loader.exec_module(soak)

STEPS = int(os.environ.get("WEBHARNESS_SOAK_STEPS", "2000"))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_soak_of_random_and_hostile_steps_over_every_scenario_and_perturbation(browser):
    result = soak.run_soak(STEPS, seed=0, action_timeout_ms=2_000, settle_cap_ms=1_500, players=2)
    print(result)  # the figures, for docs/reliability.md
    assert result.steps >= STEPS
    assert result.escaped == [], "exceptions escaped step/reset"
    assert result.step_bound_s == pytest.approx((2_000 + 1_500) / 1000 + 5)
    assert result.over_bound == [], f"steps beyond {result.step_bound_s} s + 1 s"
    assert result.chromium_left == [], "Chromium processes outlived the run"
    assert result.mem_warm_mb > 0 and result.mem_growth < 0.15
    played = {name for name, _ in result.played}
    assert played == set(webharness.task_names())
    assert {stack for _, stack in result.played} == {"", *PERTURBATIONS}
    assert result.hostile_steps > STEPS // 5


def test_memory_growth_compares_the_run_s_first_and_last_tenths():
    steady_with_a_spike = [1000.0] * 15 + [1400.0] + [1000.0] * 14
    assert soak.memory_growth(steady_with_a_spike) == 0.0
    growing = [1000.0 + 10 * i for i in range(30)]  # 1000 ... 1290: windows of 3
    assert soak.memory_growth(growing) == pytest.approx((1280 - 1010) / 1010, abs=1e-4)
    assert soak.memory_growth([1000.0]) == 0.0
