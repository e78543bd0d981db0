"""``webharness.play_attached``: the value an agent's coroutine returns is its answer. A
Playwright script over ``connect_over_cdp`` that plays the golden path and returns its answer
passes; one that skips Save and returns None (``done()``) is diagnosed as its DSL twin; one
that raises leaves no door open and ends its episode as ``agent_error``."""

from __future__ import annotations

import asyncio
from typing import Any

import gymnasium as gym
import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright

import webharness
from tests.external.test_cdp_door import SEED, dsl_twin, golden_script
from webharness.trace.models import EndedBy

pytestmark = pytest.mark.slow


def play(env: gym.Env, save: bool, answer: str | None) -> tuple[Any, ...]:
    """Reset, and let a Playwright script play through ``play_attached``, returning
    ``answer``."""

    async def agent(cdp_url: str) -> str | None:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.connect_over_cdp(cdp_url)
            await golden_script(browser.contexts[0].pages[0], save)
            await browser.close()
        return answer

    env.reset(seed=SEED)
    return asyncio.run(webharness.play_attached(env, agent))


def test_the_golden_script_and_its_returned_answer_pass(env: gym.Env) -> None:
    _, reward, terminated, truncated, info = play(env, True, "Added Thea Olsen.")
    assert terminated and not truncated and reward > 0
    assert info["action"] == "send_msg_to_user('Added Thea Olsen.')"
    assert info["episode_end"].final_answer == "Added Thea Olsen."
    assert info["success"] and info["failure"].passed


def test_a_faulty_script_returning_none_ends_with_done_as_its_dsl_twin(env: gym.Env) -> None:
    info = play(env, False, None)[4]
    twin = dsl_twin(env)
    assert info["action"] == twin["action"] == "done()"
    mine, theirs = info["failure"], twin["failure"]
    assert (mine.code, mine.step, mine.stage) == (theirs.code, theirs.step, theirs.stage)
    assert mine.code is not None and not info["success"]


def test_an_agent_that_raises_closes_its_door_and_ends_as_agent_error(env: gym.Env) -> None:
    urls: list[str] = []

    async def agent(cdp_url: str) -> str:
        urls.append(cdp_url)
        async with async_playwright() as playwright:
            browser = await playwright.chromium.connect_over_cdp(cdp_url)
            page = browser.contexts[0].pages[0]
            await page.get_by_role("button", name="New contact").click()
            raise RuntimeError("the model's reply was not JSON")

    async def reconnect(url: str) -> None:
        async with async_playwright() as playwright:
            await playwright.chromium.connect_over_cdp(url, timeout=5000)

    env.reset(seed=SEED)
    _, reward, terminated, truncated, info = asyncio.run(webharness.play_attached(env, agent))
    end = info["episode_end"]
    assert truncated and not terminated and reward == 0
    assert end.ended_by is EndedBy.AGENT_ERROR and not end.not_executable
    assert end.error == "the agent raised RuntimeError: the model's reply was not JSON"
    assert info["step"] == 2  # the click it made, then the page as it left it
    assert info["failure"].code is not None
    with pytest.raises(PlaywrightError):  # the door is shut
        asyncio.run(reconnect(urls[0]))


def test_an_answer_that_is_no_str_is_the_agents_error(env: gym.Env) -> None:
    async def agent(cdp_url: str) -> Any:
        return 42

    env.reset(seed=SEED)
    info = asyncio.run(webharness.play_attached(env, agent))[4]
    assert info["episode_end"].ended_by is EndedBy.AGENT_ERROR
    assert "returned 42 (int)" in info["episode_end"].error
