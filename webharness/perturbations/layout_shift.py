"""Layout shift: the page jumps under the pointer after it looked ready.

At a seeded step (``0..round(3 × (1 − strength))``) the shift is *armed*; the agent's
next pointer input (the mouse moving in to click or hover, a press, a wheel) then
inserts an announcement banner of ``u × 240 px × strength`` (``u`` in [0.5, 1]) at the
top of the page before the input lands, so a click aimed from the last observation hits
whatever moved under it. Logged: ``armed`` at its step and ``shifted`` (height, trigger)
at the step whose input fired it.
"""

from __future__ import annotations

import numpy as np
from playwright.async_api import Page

from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.perturbations.base import PerturbationContext, call, init_script, record, settle
from webharness.trace.models import TaskInstance

MAX_HEIGHT_PX = 240
NOTICES = (
    (
        "Scheduled maintenance on Sunday from 02:00 to 04:00 UTC: "
        "some features may be briefly unavailable."
    ),
    "New: dark mode and keyboard shortcuts are now available for every workspace.",
    "We have updated our terms of service. The changes take effect on the 1st of next month.",
    "Your trial ends in 5 days. Upgrade to keep your data and unlock every feature.",
)


def layout_shift(strength: float, ctx: PerturbationContext) -> HookFactory:
    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return
        arm_step = int(rng.integers(0, round(3 * (1 - strength)) + 1))
        height = max(8, round(float(rng.uniform(0.5, 1.0)) * MAX_HEIGHT_PX * strength))
        text = NOTICES[int(rng.integers(len(NOTICES)))]
        hooks.init_scripts.append(
            init_script(
                "perturb_layout_shift.js",
                {"armedAtLoad": arm_step == 0, "height": height, "text": text},
            )
        )
        state = {"armed": arm_step == 0, "fired": False}
        if state["armed"]:
            record(hooks, 0, "layout_shift", action="armed", height_px=height)

        async def after_action(page: Page, step: int) -> None:
            if not state["armed"]:
                if (
                    step >= arm_step
                    and await settle(page, ctx)
                    and await call(page, "layout_shift", "arm") is not None
                ):
                    state["armed"] = True
                    record(hooks, step, "layout_shift", action="armed", height_px=height)
                return
            if not state["fired"]:
                status = await call(page, "layout_shift", "status") or {}
                if status.get("fired"):
                    state["fired"] = True
                    record(
                        hooks,
                        step,
                        "layout_shift",
                        action="shifted",
                        height_px=height,
                        trigger=status.get("trigger"),
                    )

        hooks.after_action.append(after_action)

    return factory
