"""A capture Chromium refuses because the page has not drawn yet is taken again after a frame.

The situation is Chromium's own: with a new frame host per navigation (RenderDocument), a
capture sent as the new document commits mostly finds no surface yet ("Unable to capture
screenshot": 28 of 40 when measured; 3 of 40 at DOMContentLoaded, which is how a CI run once
lost a trace frame right after a reset).
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Route, async_playwright

from webharness.browser.capture import NO_FRAME_YET, capture_viewport
from webharness.browser.host import LAUNCH_ARGS, find_chromium

PAGE = "<!doctype html><body style='background: rgb(0, 128, 0)'>" + "<p>line</p>" * 100
NAVIGATIONS = 30


async def captures_at_commit(retrying: bool) -> tuple[int, list[tuple[int, ...]]]:
    """Navigations whose capture as the document committed Chromium refused, and the shapes
    of the captures taken (``capture_viewport``'s when ``retrying``, else a single try)."""
    refused, shapes = 0, []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_chromium(), args=list(LAUNCH_ARGS))
        context = await browser.new_context(viewport={"width": 640, "height": 360})

        async def serve(route: Route) -> None:
            await route.fulfill(body=PAGE, content_type="text/html")

        await context.route("**/*", serve)
        page = await context.new_page()
        cdp = await context.new_cdp_session(page)
        for _ in range(NAVIGATIONS):
            await page.goto("about:blank")
            await page.goto("http://capture.test/", wait_until="commit")
            try:
                if retrying:
                    shapes.append((await capture_viewport(cdp, page.evaluate)).shape)
                else:
                    await cdp.send("Page.captureScreenshot", {"format": "jpeg"})
            except PlaywrightError as error:
                assert any(message in str(error) for message in NO_FRAME_YET), error
                refused += 1
        await browser.close()
    return refused, shapes


def test_a_capture_with_no_surface_yet_is_taken_after_a_frame(browser: None) -> None:
    refused_once, _ = asyncio.run(captures_at_commit(retrying=False))
    refused, shapes = asyncio.run(captures_at_commit(retrying=True))
    assert refused_once > 0, "Chromium captured every time: the situation did not arise"
    assert refused == 0
    assert shapes == [(360, 640, 3)] * NAVIGATIONS
