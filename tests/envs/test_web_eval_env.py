"""WebEvalEnv as a Gymnasium env: spaces, seeding, asyncio, browser lifetime, registry."""

from __future__ import annotations

import asyncio

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import webharness
from tests.support.episodes import oracle_policy, play
from tests.support.gym_checks import page_checks
from webharness import miniwob
from webharness.envs import WebEvalEnv, registered_ids

# The MiniWoB++ pack's tasks have their own check_env test (tests/miniwob/test_check_env.py).
SCENARIOS = [i for i in registered_ids() if not i.startswith(f"WebEval/{miniwob.PREFIX}")]
# A form over several views, a shop of several pages, a page of seeded timers.
FULL_CHECK_SAMPLE = ["WebEval/form-v0", "WebEval/shop-v0", "WebEval/async-v0"]


@pytest.mark.parametrize("env_id", SCENARIOS)
def test_every_scenario_s_page_passes_gymnasium_s_step_determinism_check(browser, env_id):
    """With screenshots: the same seed and action give the same pixels too."""
    env = gym.make(env_id)
    try:
        page_checks(env.unwrapped)
    finally:
        env.close()


@pytest.mark.parametrize("env_id", FULL_CHECK_SAMPLE)
def test_check_env_passes_in_full_on_a_sample_of_scenarios(browser, env_id):
    """The rest of ``check_env`` checks the env's own code (``tests/support/gym_checks.py``)."""
    assert env_id in SCENARIOS
    env = gym.make(env_id)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def test_every_built_in_scenario_is_registered():
    """Under the built-ins' namespace (the process's other tests register folders of their
    own, under theirs)."""
    names = webharness.task_names() + miniwob.pack_names()
    built_in = [env_id for env_id in registered_ids() if env_id.startswith("WebEval/")]
    assert sorted(built_in) == sorted(f"WebEval/{n}-v0" for n in names)


def test_observation_has_screenshot_and_axtree_in_the_declared_space(make_env):
    env = make_env("WebEval/form-v0")
    obs, info = env.reset(seed=1)
    assert obs["screenshot"].shape == (720, 1280, 3) and obs["screenshot"].dtype == np.uint8
    assert '- button "New contact" [ref=' in obs["axtree"]
    assert env.observation_space.contains(obs)
    assert info["task"].instruction == obs["goal"]


@pytest.mark.parametrize(
    "mode, keys",
    [
        ("text", {"axtree", "url", "goal", "last_action_error", "user_messages"}),
        ("pixels", {"screenshot", "url", "goal", "last_action_error", "user_messages"}),
    ],
)
def test_obs_mode_selects_the_fields(make_env, mode, keys):
    env = make_env("WebEval/form-v0", obs_mode=mode)
    obs, _ = env.reset(seed=0)
    assert set(obs) == keys and env.observation_space.contains(obs)


def test_render_returns_the_screenshot_in_rgb_array_mode(make_env):
    env = make_env("WebEval/form-v0", obs_mode="text", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (720, 1280, 3) and frame.dtype == np.uint8 and frame.std() > 0


def test_bad_options_name_the_value(make_env):
    with pytest.raises(ValueError, match="obs_mode='txt'.*Did you mean: 'text'"):
        make_env("WebEval/form-v0", obs_mode="txt")
    with pytest.raises(webharness.UnknownTaskError, match="Closest: 'form'"):
        webharness.get_task("fomr")


def test_an_upload_dir_that_is_no_folder_is_named(tmp_path):
    with pytest.raises(ValueError, match="upload_dir=.*missing.*: give the path of an existing"):
        WebEvalEnv("form", upload_dir=tmp_path / "missing")


def test_the_same_seed_and_actions_give_the_same_semantic_states(make_env):
    def fingerprints():
        env = make_env("WebEval/form-v0", obs_mode="text")
        run = play(env, oracle_policy(env), seed=7)
        return [i["semantic_state"].fingerprint() for i in run.infos], run.actions

    first, second = fingerprints(), fingerprints()
    assert first == second


def test_different_seeds_give_different_instances(make_env):
    env = make_env("WebEval/form-v0", obs_mode="text")
    goals = {env.reset(seed=s)[1]["task"].instruction for s in range(5)}
    assert len(goals) == 5


def test_the_env_works_inside_a_running_asyncio_loop(make_env):
    env = make_env("WebEval/form-v0", obs_mode="text")

    async def notebook_cell():
        obs, info = env.reset(seed=0)
        ref = info["semantic_state"].find("button", "New contact")[0].ref
        return env.step(f"click({ref!r})")

    _, _, _, _, info = asyncio.run(notebook_cell())
    assert info["action_result"].ok and info["semantic_state"].find("textbox", "Full name")


def test_step_before_reset_is_refused():
    env = gym.make("WebEval/form-v0")
    with pytest.raises(gym.error.ResetNeeded):
        env.step("noop()")
    env.close()


def test_max_steps_truncates(make_env):
    env = make_env("WebEval/form-v0", obs_mode="text", max_steps=2)
    env.reset(seed=0)
    assert env.step("noop()")[3] is False
    _, reward, terminated, truncated, info = env.step("noop()")
    assert truncated and not terminated and info["episode_end"].ended_by == "max_steps"


def test_auto_terminate_ends_when_the_criteria_hold(make_env):
    env = make_env("WebEval/form-v0", obs_mode="text", auto_terminate=True)
    policy = oracle_policy(env)
    run = play(env, policy, seed=2)
    assert run.terminated and run.success
    assert run.last["episode_end"].ended_by == "criteria"
    assert run.actions[-1] != "done()"


def test_a_missing_browser_says_how_to_install_one(monkeypatch):
    monkeypatch.setenv("WEBHARNESS_CHROMIUM", "/nonexistent/chrome")
    with pytest.raises(webharness.BrowserNotFoundError, match="apt-get install -y chromium"):
        webharness.find_chromium()
    monkeypatch.delenv("WEBHARNESS_CHROMIUM")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(webharness.BrowserNotFoundError, match="playwright install chromium"):
        webharness.find_chromium(playwright_path="/nonexistent/playwright-chromium")


def test_the_env_var_override_is_used(monkeypatch, tmp_path):
    fake = tmp_path / "chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("WEBHARNESS_CHROMIUM", str(fake))
    assert webharness.find_chromium() == str(fake)


def _fake_binary(folder, name):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_headless_prefers_a_headless_shell_and_headed_the_full_chromium(monkeypatch, tmp_path):
    monkeypatch.delenv("WEBHARNESS_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    chromium = _fake_binary(tmp_path, "chromium")
    assert webharness.find_chromium(headless=True) == chromium  # no shell: the full one
    shell = _fake_binary(tmp_path, "chromium-headless-shell")
    assert webharness.find_chromium(headless=True) == shell
    assert webharness.find_chromium(headless=False) == chromium


def test_playwright_s_own_headless_shell_comes_before_the_system_s(monkeypatch, tmp_path):
    monkeypatch.delenv("WEBHARNESS_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    _fake_binary(tmp_path / "bin", "chromium-headless-shell")
    downloaded = _fake_binary(tmp_path, "ms-playwright/chromium-1200/chrome-linux64/chrome")
    shell = _fake_binary(
        tmp_path,
        "ms-playwright/chromium_headless_shell-1200/chrome-headless-shell-linux64/chrome-headless-shell",
    )
    assert webharness.find_chromium(downloaded, headless=True) == shell
    assert webharness.find_chromium(downloaded, headless=False) == downloaded


class _Counter(gym.Env):
    """Observes how many steps it has taken in its whole life: not the same after a reset."""

    observation_space = gym.spaces.Box(0.0, 100.0, (1,))
    action_space = gym.spaces.Discrete(2)

    def __init__(self, outside: bool = False) -> None:
        self.steps, self.outside = 0, outside

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.array([200.0 if self.outside else 0.0], np.float32), {}

    def step(self, action):
        self.steps += 1
        return np.array([float(self.steps)], np.float32), 0.0, False, False, {}


def test_the_page_checks_fail_on_a_step_that_differs_or_leaves_the_space():
    with pytest.raises(AssertionError, match="not equivalent"):
        page_checks(_Counter())
    with pytest.raises(AssertionError, match="outside the space"):
        page_checks(_Counter(outside=True))
