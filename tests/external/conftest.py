"""Fixtures of the CDP door's tests: form-v0 served over CDP under the diagnosis wrappers."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import pytest

from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment

CDP_TASK = "WebEval/form-v0"


@pytest.fixture(scope="module")
def env(browser: None) -> Iterator[gym.Env]:
    """form-v0 with ``cdp=True`` and text observations, aligned and diagnosed."""
    env = FailureAnnotation(GoldenTraceAlignment(gym.make(CDP_TASK, cdp=True, obs_mode="text")))
    yield env
    env.close()
