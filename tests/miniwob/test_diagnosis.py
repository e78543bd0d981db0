"""Our diagnosis and perturbations on MiniWoB++ pages: alignment against a golden path,
failure codes with and without one, and every perturbation on a page that starts its
own episode."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from tests.support.episodes import play
from webharness.action_result import ActionErrorKind
from webharness.diagnosis.failures import FailureCode
from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment
from webharness.wrappers.perturbations import WRAPPERS

Obs = dict[str, Any]


def _click(role: str, name: str | None = None) -> Any:
    def policy(obs: Obs, info: Obs) -> str:
        element = next(
            e
            for e in info["semantic_state"].elements
            if e.role == role and (name is None or e.name == name)
        )
        return f"click({element.ref!r})"

    return policy


@pytest.fixture(scope="module")
def diagnosed(browser: None) -> Any:
    """click-dialog (a golden path: close it) with alignment and failure annotation."""
    env = gym.make("WebEval/miniwob.click-dialog-v0", obs_mode="text")
    wrapped = FailureAnnotation(GoldenTraceAlignment(env))
    yield wrapped
    wrapped.close()


def test_the_golden_path_aligns_with_an_agent_that_closes_the_dialog(diagnosed: Any) -> None:
    run = play(diagnosed, _click("button", "Close"), seed=3)
    assert run.success and run.reward == 1.0
    assert run.last["alignment"].progress_rate == 1.0 and run.last["failure"].code is None


def test_an_agent_that_claims_success_at_once_is_a_diagnosed_false_success(diagnosed) -> None:
    run = play(diagnosed, lambda obs, info: "done()", seed=3)
    failure, alignment = run.last["failure"], run.last["alignment"]
    assert (failure.code, failure.false_success) == (FailureCode.TASK_INCOMPLETE, True)
    assert alignment.progress_rate == 0.0 and alignment.first_divergence_step == 1


def test_codes_that_need_no_golden_path_name_the_agents_mistake(make_env) -> None:
    env = FailureAnnotation(make_env("WebEval/miniwob.click-checkboxes-v0", obs_mode="text"))

    def fill_a_checkbox(obs: Obs, info: Obs) -> str:
        box = next(e for e in info["semantic_state"].elements if e.role == "checkbox")
        return f"fill({box.ref!r}, 'x')"

    run = play(env, fill_a_checkbox, seed=1)
    assert run.infos[1]["action_result"].error == ActionErrorKind.UNSUPPORTED_CONTROL
    assert run.truncated and run.reward == -1.0  # the page never ended its episode
    assert run.last["failure"].code == FailureCode.REPEATED_ACTION


# DOM replacement rebuilds lists: phone-book has one (click-button has none to rebuild).
PAGE = {"dom_replacement": "phone-book"}


@pytest.mark.parametrize("perturbation", sorted(WRAPPERS))
def test_every_perturbation_runs_on_a_page_that_starts_its_own_episode(
    make_env, perturbation: str
) -> None:
    env_id = f"WebEval/miniwob.{PAGE.get(perturbation, 'click-button')}-v0"
    env = WRAPPERS[perturbation](make_env(env_id, obs_mode="text"), strength=1.0)
    goal = make_env(env_id, obs_mode="text").reset(seed=3)[0]["goal"]
    obs, info = env.reset(seed=3)
    if perturbation == "paraphrase":  # the page's own goal, reworded, its values kept
        assert obs["goal"] != goal and '"no"' in obs["goal"]
    else:
        assert obs["goal"] == goal
    obs, reward, terminated, truncated, info = env.step("noop()")
    assert info["action_result"].ok and not info.get("episode_end")
    assert info["perturbations"], perturbation  # it did something, by the first step
