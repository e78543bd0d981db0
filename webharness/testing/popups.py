"""A popup that opens under the agent: the page's controls stay in view but take no input.

``popup_hook`` opens the newsletter modal of the popup perturbation (it covers the whole
viewport) just before golden step ``at``: after the action of golden step ``at - 1``, or
with the first page when ``at`` is 1. ``under_popup`` then plays the next golden actions
as if nothing covered them: each is refused (``not_interactable``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from playwright.async_api import Page

from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.perturbations.base import call, init_script
from webharness.testing.fault_agent import FaultContext, FaultSetupError, Planned
from webharness.trace.models import TaskInstance

if TYPE_CHECKING:
    from webharness.testing.fault_agent import FaultyAgent

__all__ = ["POPUP", "popup_hook", "under_popup"]

POPUP = "newsletter"  # the modal: it covers the whole viewport
REFUSED_STEPS = 3  # golden actions tried under the popup


def popup_hook(agent: FaultyAgent) -> HookFactory:
    """A hook factory that opens the popup before the agent's golden step ``agent.at``."""

    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        at_load = [POPUP] if agent.at <= 1 else []
        hooks.init_scripts.append(init_script("perturb_popup.js", {"atLoad": at_load}))

        async def after_action(page: Page, step: int) -> None:
            if agent.at > 1 and agent.env_step_of.get(agent.at - 1) == step:
                await call(page, "popup", "show", POPUP)

        hooks.after_action.append(after_action)

    return factory


def under_popup(ctx: FaultContext) -> list[Planned]:
    """The next golden actions on the page's controls, as if the popup were not there."""
    planned = [ctx.resolve(k) for k in range(ctx.agent.at, ctx.agent.at + REFUSED_STEPS)]
    actions = [a.dsl() for a in planned if a is not None and a.ref_target]
    if len(actions) < 2:
        raise FaultSetupError(f"fewer than two golden actions on controls from step {ctx.agent.at}")
    if not ctx.state.dialogs:
        raise FaultSetupError(f"the popup is not open before golden step {ctx.agent.at}")
    return list(actions)
