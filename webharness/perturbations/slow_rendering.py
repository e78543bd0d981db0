"""Slow rendering: the content the task needs appears late, even on a fast page.

Every page of the site keeps its main content (``<main>`` or ``role=main``; the whole
body when there is none) invisible after it loaded, for ``u × 3 s × strength``
(``u`` in [0.5, 1], seeded once per episode). Nothing is slow on the network: an agent
that acts on the first observation finds nothing to act on, one that waits finds it.

The delay is counted on the agent's clock, so that the same actions always meet the
same page: a ``wait(ms)`` step spends ``ms``, any other step :data:`STEP_MS`; the content
appears after the step that brings the page's total to the delay. A task that declares
a ``ready`` selector makes the harness itself wait until that selector is visible, so
there the delay runs on the page's own clock and the harness waits it out (the agent
then meets a slow page, not a hidden one). Logged: each delayed page load, and (agent's
clock) the step at which the content appeared.
"""

from __future__ import annotations

import numpy as np
from playwright.async_api import Page, Request

from webharness import actions as A
from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.origins import origin_of
from webharness.perturbations.base import (
    PerturbationContext,
    call,
    init_script,
    is_page_load,
    record,
    settle,
    shown_url,
)
from webharness.trace.models import TaskInstance

MAX_DELAY_MS = 3_000
STEP_MS = 100  # what a step other than wait() counts for on the agent's clock


def slow_rendering(strength: float, ctx: PerturbationContext) -> HookFactory:
    timer = ctx.spec.ready is not None and ctx.spec.ready.selector is not None

    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return
        delay_ms = round(float(rng.uniform(0.5, 1.0)) * MAX_DELAY_MS * strength)
        mode = "timer" if timer else "step"
        hooks.init_scripts.append(
            init_script("perturb_slow_rendering.js", {"delayMs": delay_ms, "mode": mode})
        )
        page_clock = {"spent_ms": 0, "revealed": False, "loaded_at": -1}

        async def on_request(request: Request) -> None:
            if is_page_load(request) and origin_of(request.url) in ctx.origins:
                page_clock.update(spent_ms=0, revealed=False, loaded_at=ctx.clock.step)
                record(
                    hooks,
                    ctx.clock.step,
                    "slow_rendering",
                    url=shown_url(request.url, ctx),
                    delay_ms=delay_ms,
                    clock=mode,
                )

        async def after_action(page: Page, step: int) -> None:
            if (
                page_clock["revealed"]
                or page_clock["loaded_at"] == step
                or not await settle(page, ctx)
            ):
                return  # shown already, or a new page (its clock starts at zero)
            page_clock["spent_ms"] += _spent_ms(ctx.clock.action)
            if page_clock["spent_ms"] >= delay_ms and await call(page, "slow_rendering", "reveal"):
                page_clock["revealed"] = True
                record(
                    hooks,
                    step,
                    "slow_rendering",
                    action="revealed",
                    after_ms=page_clock["spent_ms"],
                )

        hooks.request_hooks.append(on_request)
        if not timer:
            hooks.after_action.append(after_action)

    return factory


def _spent_ms(action: object) -> int:
    """How long an action counts for on the agent's clock."""
    try:
        parsed = A.parse_action(action)
    except A.ActionParseError:
        return STEP_MS
    return max(STEP_MS, int(parsed.ms)) if isinstance(parsed, A.Wait) else STEP_MS
