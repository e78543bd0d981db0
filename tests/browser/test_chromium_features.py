"""The browser the harness starts itself (``--cdp``) runs with Playwright's feature lists.

The oracle is Chromium itself: a renderer is started with the feature lists its browser
resolved from the command line (where only the last of each switch counts), so its
``/proc`` command line shows what a page actually runs with, for a plain Playwright launch
and for the harness's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from playwright.async_api import Browser, async_playwright

from webharness.browser.chromium_features import features_in
from webharness.browser.host import LAUNCH_ARGS, find_chromium
from webharness.browser.process_tree import cmdline

Features = dict[str, set[str]]  # "enable" and "disable": the feature names


async def renderer_features(browser: Browser) -> Features:
    """The features a renderer of ``browser`` runs with and without (it has a page open)."""
    cdp = await browser.new_browser_cdp_session()
    processes = (await cdp.send("SystemInfo.getProcessInfo"))["processInfo"]
    await cdp.detach()
    renderers = [p["id"] for p in processes if p.get("type") == "renderer"]
    assert renderers, processes
    # a zygote's child shows its switches as one string (its process title), not argv
    switches = cmdline(int(renderers[0])).decode().replace("\0", " ").split()
    features: Features = {}
    for kind in ("enable", "disable"):
        found = [s for s in switches if s.startswith(f"--{kind}-features=")]
        assert len(found) == 1, switches  # the browser passes its resolved list, once
        features[kind] = set(found[0].split("=", 1)[1].split(","))
    return features


async def launched_with(args: list[str]) -> Features:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_chromium(), args=args)
        try:
            await browser.new_page()
            return await renderer_features(browser)
        finally:
            await browser.close()


def test_the_browser_the_harness_starts_itself_runs_as_its_playwright_launch(
    make_env: Callable[..., gym.Env],
) -> None:
    playwright_launch = asyncio.run(launched_with(list(LAUNCH_ARGS)))
    env = make_env("WebEval/form-v0", obs_mode="text", cdp=True)
    env.reset(seed=0)
    unwrapped: Any = env.unwrapped
    browser = unwrapped.episode.session.context.browser
    own_launch = unwrapped._runtime.run(renderer_features(browser), 30)
    assert "CDPScreenshotNewSurface" in own_launch["enable"]  # captures a frame's worth sooner
    assert "PaintHolding" in own_launch["disable"]
    assert own_launch == playwright_launch


def test_the_lists_are_read_from_either_form_of_the_drivers_source() -> None:
    bundled = """
      disabledFeatures = [
        // See https://example.test/issues/1 ("Quoted" in a comment is no feature)
        "AvoidUnnecessaryBeforeUnloadCheckSync",
        'PaintHolding',
      ].filter(Boolean);
    """
    assert features_in(bundled, "disabled") == (
        "AvoidUnnecessaryBeforeUnloadCheckSync",
        "PaintHolding",
    )
    enabled = """enabledFeatures = () => [
      process.env.LEGACY ? "" : "CDPScreenshotNewSurface", "SkipListAccounts"]"""
    assert features_in(enabled, "enabled") == ("CDPScreenshotNewSurface", "SkipListAccounts")
    module = "['--disable-features=Translate,MediaRouter', '--enable-features=NetworkService']"
    assert features_in(module, "disabled") == ("Translate", "MediaRouter")
    assert features_in(module, "enabled") == ("NetworkService",)
    assert features_in("chromiumSwitches = ['--no-sandbox']", "disabled") is None
