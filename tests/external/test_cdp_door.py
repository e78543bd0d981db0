"""An agent that drives the episode's browser itself, over CDP (``webharness.attach``): a
plain Playwright script connected with ``connect_over_cdp`` plays the golden path step for
step, a faulty script is diagnosed as its DSL twin is, and the agent sees its episode's
page only."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any

import gymnasium as gym
import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, async_playwright

from webharness.cdp.door import attach

SEED = 0  # of the conftest's task, form-v0
pytestmark = pytest.mark.slow


async def golden_script(page: Page, save: bool = True) -> None:
    """What a Playwright user writes for form-v0 seed 0."""
    await page.get_by_role("button", name="New contact").click()
    await page.get_by_role("textbox", name="Full name").fill("Thea Olsen")
    await page.get_by_role("textbox", name="Email").fill("thea.olsen@oakridge-partners.example")
    await page.get_by_role("textbox", name="Company").fill("Oakridge Partners")
    await page.get_by_role("combobox", name="Country").select_option("France")
    await page.get_by_role("checkbox", name="VIP customer").check()
    if save:
        await page.get_by_role("button", name="Save contact").click()


def play_script(env: gym.Env, save: bool) -> tuple[list[str], dict[str, Any]]:
    """Reset, let the script play through ``attach``, end with done(); the steps' actions
    and the last info."""
    infos = played(env, lambda page: golden_script(page, save))
    info = env.step("done()")[4]
    return [i["action"] for i in infos], info


def played(env: gym.Env, script: Callable[[Page], Awaitable[None]]) -> list[dict[str, Any]]:
    """Reset, let ``script`` play on the episode's page through ``attach``; the info of
    each step it made."""
    infos: list[dict[str, Any]] = []
    step = env.step

    def noting(action: Any) -> Any:
        out = step(action)
        infos.append(out[4])
        return out

    async def main() -> None:
        await asyncio.to_thread(env.reset, seed=SEED)
        async with attach(env) as url:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.connect_over_cdp(url)
                await script(browser.contexts[0].pages[0])
                await browser.close()

    env.step = noting  # type: ignore[method-assign]
    try:
        asyncio.run(main())
    finally:
        del env.step
    return infos


def test_a_playwright_script_plays_the_golden_path_step_for_step(env: gym.Env) -> None:
    actions, info = play_script(env, save=True)
    kinds = [a.split("(", 1)[0] for a in actions]
    # the click, three fills, select_option (a script), the check box's click, Save's click
    assert kinds == ["mouse_click", *["keyboard_type"] * 3, "script", "mouse_click", "mouse_click"]
    assert info["success"] and info["failure"].passed
    alignment = info["alignment"]
    assert alignment.progress_rate == 1.0 and alignment.first_divergence_step is None
    assert not alignment.skipped_golden_steps and not alignment.extra_steps


def test_a_faulty_script_gets_its_dsl_twins_diagnosis(env: gym.Env) -> None:
    _, info = play_script(env, save=False)
    twin = dsl_twin(env)
    mine, theirs = info["failure"], twin["failure"]
    assert (mine.code, mine.step, mine.stage, mine.false_success) == (
        theirs.code,
        theirs.step,
        theirs.stage,
        theirs.false_success,
    )
    assert mine.code is not None and mine.false_success


# What browser-use draws before it acts: the element it acts on outlined (removed a second
# later), and the elements it shows its model numbered (removed before its next action).
OUTLINE = """() => {
  const box = document.createElement("div");
  box.setAttribute("data-browser-use-interaction-highlight", "true");
  box.append(document.createElement("div"), document.createElement("div"));
  document.body.append(box);
}"""
NUMBERS = """() => {
  const all = document.createElement("div");
  all.setAttribute("data-browser-use-highlight", "container");
  const one = document.createElement("div");
  one.setAttribute("data-browser-use-highlight", "element");
  one.append(Object.assign(document.createElement("div"), { textContent: "12" }));
  all.append(one);
  document.body.append(all);
}"""
REMOVE = """() => document.querySelectorAll(
  "[data-browser-use-highlight], [data-browser-use-interaction-highlight]"
).forEach((overlay) => overlay.remove())"""
NOT_AN_OVERLAY = "() => document.body.append(document.createElement('div'))"


@pytest.mark.parametrize(
    ("scripts", "kinds"),
    [
        ([NUMBERS, OUTLINE], ["mouse_click"]),
        ([REMOVE], ["mouse_click"]),
        ([NOT_AN_OVERLAY], ["script", "mouse_click"]),
    ],
    ids=["drawn", "removed", "a_plain_element"],
)
def test_an_agents_own_overlays_are_no_step(
    env: gym.Env, scripts: list[str], kinds: list[str]
) -> None:
    """browser-use's overlays, drawn (and removed) by scripts of its own before it clicks,
    leave the page's digest as it was: the click is the only step. An element of the
    page's own added by a script makes a step."""

    async def script(page: Page) -> None:
        await page.evaluate(NUMBERS)  # there before the first step, as browser-use's
        await page.evaluate(OUTLINE)
        await page.get_by_role("button", name="New contact").click()
        for overlay in scripts:
            await page.evaluate(overlay)
        await page.get_by_role("button", name="Cancel").click()

    actions = [info["action"] for info in played(env, script)]
    assert [a.split("(", 1)[0] for a in actions] == ["mouse_click", *kinds]


def test_a_refused_navigation_is_the_step_a_dsl_goto_there_is(env: gym.Env) -> None:
    """The door refuses it, and records the env's own goto, which the env refuses in turn:
    the step, its error and the page are those of a DSL agent's goto to that origin."""
    offsite = "http://127.0.0.1:9/elsewhere"

    async def script(page: Page) -> None:
        with pytest.raises(PlaywrightError, match="webharness refuses Page.navigate"):
            await page.goto(offsite)

    (mine,) = played(env, script)
    _, info = env.reset(seed=SEED)
    twin = env.step(f"goto({offsite!r})")[4]
    assert mine["action"] == twin["action"] == f"goto({offsite!r})"
    assert mine["action_result"].error == twin["action_result"].error == "navigation_blocked"
    assert mine["semantic_state"].url == twin["semantic_state"].url == info["semantic_state"].url


def dsl_twin(env: gym.Env) -> dict[str, Any]:
    """The golden path without its Save click, then done(), through ``env.step``."""
    _, info = env.reset(seed=SEED)
    state = info["semantic_state"]
    steps = [f"click({state.find('button', 'New contact')[0].ref!r})"]
    info = env.step(steps[0])[4]
    ref = {(e.role, e.name): e.ref for e in info["semantic_state"].elements}
    plan = [
        f"fill({ref['textbox', 'Full name']!r}, 'Thea Olsen')",
        f"fill({ref['textbox', 'Email']!r}, 'thea.olsen@oakridge-partners.example')",
        f"fill({ref['textbox', 'Company']!r}, 'Oakridge Partners')",
        f"select_option({ref['combobox', 'Country']!r}, 'France')",
        f"check({ref['checkbox', 'VIP customer']!r})",
        "done()",
    ]
    for action in plan:
        info = env.step(action)[4]
    return info


def test_the_agent_sees_its_episodes_page_only(env: gym.Env) -> None:
    other = gym.make("WebEval/search-v0", cdp=True, obs_mode="text")
    try:
        other.reset(seed=1)
        env.reset(seed=SEED)

        async def main() -> list[list[str]]:
            async with attach(env) as mine, attach(other) as theirs:
                async with async_playwright() as playwright:
                    seen = []
                    for url in (mine, theirs):
                        browser = await playwright.chromium.connect_over_cdp(url)
                        seen.append([await p.title() for c in browser.contexts for p in c.pages])
                        await browser.close()
                    return seen

        mine, theirs = asyncio.run(main())
    finally:
        other.close()
    assert len(mine) == 1 and len(theirs) == 1 and mine != theirs


def test_a_wrong_token_finds_nothing_and_the_right_one_says_where_to_connect(
    env: gym.Env,
) -> None:
    env.reset(seed=SEED)

    async def main() -> tuple[dict[str, Any], int]:
        async with attach(env) as url:
            http = url.replace("ws://", "http://").replace("/devtools/browser/", "/")
            version = json.loads(urllib.request.urlopen(f"{http}/json/version").read())
            try:
                urllib.request.urlopen(http[:-3] + "xyz/json/version")
                status = 200
            except urllib.error.HTTPError as error:
                status = error.code
            return {**version, "url": url}, status

    version, wrong = asyncio.run(main())
    assert version["webSocketDebuggerUrl"] == version["url"] and wrong == 404
