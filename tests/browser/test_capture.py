"""A capture Chromium refuses because the page has not drawn yet is taken again after a frame.

The situation is Chromium's own: with a new frame host per navigation (RenderDocument, on
in a plain Playwright launch), a capture sent right at DOMContentLoaded often finds no
surface ("Unable to capture screenshot"; 5 of 30 when measured). The harness's launch turns
RenderDocument off (``chromium_features.py``), but a capture must not depend on it.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Route, async_playwright

from webharness.browser.capture import NO_SURFACE, capture_viewport
from webharness.browser.host import LAUNCH_ARGS, find_chromium

PAGE = "<!doctype html><body style='background: rgb(0, 128, 0)'>" + "<p>line</p>" * 100
NAVIGATIONS = 30


async def captures_at_content_loaded(retrying: bool) -> tuple[int, list[tuple[int, ...]]]:
    """Navigations whose capture at DOMContentLoaded Chromium refused, and the shapes of
    the captures taken (``capture_viewport``'s when ``retrying``, else a single try)."""
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
            await page.goto("http://capture.test/", wait_until="domcontentloaded")
            try:
                if retrying:
                    shapes.append((await capture_viewport(cdp, page.evaluate)).shape)
                else:
                    await cdp.send("Page.captureScreenshot", {"format": "jpeg"})
            except PlaywrightError as error:
                assert NO_SURFACE in str(error)
                refused += 1
        await browser.close()
    return refused, shapes


def test_a_capture_with_no_surface_yet_is_taken_after_a_frame(browser: None) -> None:
    refused_once, _ = asyncio.run(captures_at_content_loaded(retrying=False))
    refused, shapes = asyncio.run(captures_at_content_loaded(retrying=True))
    assert refused_once > 0, "Chromium captured every time: the situation did not arise"
    assert refused == 0
    assert shapes == [(360, 640, 3)] * NAVIGATIONS
