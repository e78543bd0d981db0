"""DOM replacement: after an action, part of the page is rebuilt with equal content.

Each step's action is followed, with probability ``strength`` (seeded per step), by a
rebuild: once the action's effects have settled, the items of one list / table body /
menu / navigation (and of each other one with probability ``strength``) are replaced
by deep clones. Only items without behaviour of their own are cloned (see
``js/perturb_dom_replacement.js``), so the site keeps working while every ref taken from
an earlier observation for those elements is stale. Logged: what was rebuilt, per step.
"""

from __future__ import annotations

import numpy as np
from playwright.async_api import Page

from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.perturbations.base import (
    PerturbationContext,
    call,
    init_script,
    record,
    seed_of,
    settle,
)
from webharness.trace.models import TaskInstance


def dom_replacement(strength: float, ctx: PerturbationContext) -> HookFactory:
    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return
        draws = [(rng.random() < strength, seed_of(rng)) for _ in range(ctx.max_steps)]
        plan = {step: seed for step, (fires, seed) in enumerate(draws, start=1) if fires}
        hooks.init_scripts.append(init_script("perturb_dom_replacement.js", {}))

        async def after_action(page: Page, step: int) -> None:
            if step in plan and await settle(page, ctx):
                parts = await call(page, "dom_replacement", "replace", plan[step], strength)
                if parts:
                    record(hooks, step, "dom_replacement", parts=parts)

        hooks.after_action.append(after_action)

    return factory
