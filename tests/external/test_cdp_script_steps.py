"""Which of a CDP agent's scripts are steps: a script whose run changed the page, and only
that. A change the page makes by itself between two scripts (a toast that goes) is none, and
two scripts in a row that each change the page are two steps."""

from __future__ import annotations

import gymnasium as gym
import pytest
from playwright.async_api import Page

from tests.external.test_cdp_door import played

pytestmark = pytest.mark.slow

# The page's own behaviour, as form-v0 shows its toasts: a click shows one, and the page
# takes it away by itself a moment later (and says so on its console).
TOAST_ON_CLICK = """() => document.addEventListener("click", () => {
  const toast = Object.assign(document.createElement("p"), { textContent: "Noted." });
  document.body.append(toast);
  setTimeout(() => { toast.remove(); console.log("toast gone"); }, 500);
}, { once: true })"""
READ = "() => document.title"
ADD = "() => document.body.append(Object.assign(document.createElement('p'), {textContent: 'x'}))"


def test_a_change_the_page_makes_by_itself_between_scripts_is_no_step(env: gym.Env) -> None:
    async def script(page: Page) -> None:
        await page.evaluate(TOAST_ON_CLICK)  # adds a listener: the page is as it was
        # Waits, at the block's end, on the page's own event: it sends the browser nothing.
        async with page.expect_console_message(lambda m: m.text == "toast gone", timeout=10000):
            await page.get_by_role("button", name="New contact").click()  # the toast shows
            await page.evaluate(READ)  # while the toast is there
        await page.evaluate(READ)  # the page changed since the last script, not in this one
        await page.get_by_role("button", name="Cancel").click()

    actions = [info["action"] for info in played(env, script)]
    assert [a.split("(", 1)[0] for a in actions] == ["mouse_click", "mouse_click"]


def test_two_scripts_in_a_row_that_each_change_the_page_are_two_steps(env: gym.Env) -> None:
    async def script(page: Page) -> None:
        await page.evaluate(ADD)
        await page.evaluate(ADD)
        await page.evaluate(READ)  # reads only: no step
        await page.get_by_role("button", name="New contact").click()

    actions = [info["action"] for info in played(env, script)]
    assert [a.split("(", 1)[0] for a in actions] == ["script", "script", "mouse_click"]
