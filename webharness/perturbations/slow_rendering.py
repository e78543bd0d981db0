"""Slow rendering: the content the task needs appears late, even on a fast page.

Every page of the site keeps its main content (``<main>`` or ``role=main``; the whole
body when there is none) invisible until ``u × 3 s × strength`` (``u`` in [0.5, 1],
seeded once per episode) have passed after the document loaded. Nothing is slow on the
network: an agent that acts on the first observation finds nothing to act on, one that
waits finds it. Logged: each page load it delayed, with its step and the delay.
"""

from __future__ import annotations

import numpy as np
from playwright.async_api import Request

from webharness.hooks import EpisodeHooks, HookFactory
from webharness.perturbations.base import PerturbationContext, init_script, is_page_load, origin_of, record, shown_url
from webharness.trace import TaskInstance

MAX_DELAY_MS = 3_000


def slow_rendering(strength: float, ctx: PerturbationContext) -> HookFactory:
    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return
        delay_ms = round(float(rng.uniform(0.5, 1.0)) * MAX_DELAY_MS * strength)
        hooks.init_scripts.append(init_script("perturb_slow_rendering.js", {"delayMs": delay_ms}))

        async def on_request(request: Request) -> None:
            if is_page_load(request) and origin_of(request.url) in ctx.origins:
                record(hooks, ctx.clock.step, "slow_rendering", url=shown_url(request.url, ctx), delay_ms=delay_ms)

        hooks.request_hooks.append(on_request)

    return factory

