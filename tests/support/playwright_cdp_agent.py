"""A plain Playwright script as an external agent that drives its own browser: it connects
to ``--cdp URL`` with ``connect_over_cdp`` and adds the contact form-v0's goal asks for,
read from the goal's text. ``--fault no-save`` leaves without saving; ``--ask URL`` first
asks the simulated user at ``{ask_url}`` and prints the answer to stderr. Either way it
prints its answer as its last line.

Run: ``python -m tests.support.playwright_cdp_agent --cdp URL --goal GOAL [--fault no-save]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import urllib.request

from playwright.async_api import async_playwright

_GOAL = re.compile(
    r'full name "(?P<name>[^"]+)", email (?P<email>\S+), company (?P<company>.+?), '
    r"country (?P<country>.+?), (?:marked as|as) (?P<tier>a VIP|a standard)"
)


def ask(url: str, question: str) -> str:
    request = urllib.request.Request(
        url,
        data=json.dumps({"question": question}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return str(json.loads(response.read())["answer"])


async def main(url: str, goal: str, fault: str, ask_url: str | None) -> None:
    if ask_url:
        print(
            f"asked; the user said: {ask(ask_url, 'Should the contact be saved?')!r}",
            file=sys.stderr,
        )
    wanted = _GOAL.search(goal)
    assert wanted, f"not a contact to add: {goal!r}"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(url)
        page = browser.contexts[0].pages[0]
        await page.get_by_role("button", name="New contact").click()
        await page.get_by_role("textbox", name="Full name").fill(wanted["name"])
        await page.get_by_role("textbox", name="Email").fill(wanted["email"])
        await page.get_by_role("textbox", name="Company").fill(wanted["company"])
        await page.get_by_role("combobox", name="Country").select_option(wanted["country"])
        if wanted["tier"] == "a VIP":
            await page.get_by_role("checkbox", name="VIP customer").check()
        if fault != "no-save":
            await page.get_by_role("button", name="Save contact").click()
        await browser.close()
    print(f"Added {wanted['name']}.")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cdp", required=True)
    parser.add_argument("--goal", required=True)
    parser.add_argument("--fault", default="")
    parser.add_argument("--ask")
    args = parser.parse_args()
    asyncio.run(main(args.cdp, args.goal, args.fault, args.ask))
