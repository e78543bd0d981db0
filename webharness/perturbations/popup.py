"""Popup: a cookie banner, a newsletter modal or a chat window opens at a seeded step.

Strength sets how many of the three open (``ceil(3 × strength)``, at most the kinds
allowed) and how early: each opens at a step drawn from ``0..round(3 × (1 − strength))``
(step 0: with the first page). An open popup is a ``role=dialog`` with an ``aria-label``
that covers part of the viewport (the modal covers all of it) and takes the clicks that
land there, until its dismiss button is clicked; it follows the user to other pages of
the same origin until then. Logged: ``shown`` (with the dialog's name, the dismiss
button's name and its layer, higher on top) and ``dismissed``, each at its step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from playwright.async_api import Page

from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.perturbations.base import PerturbationContext, call, init_script, record, settle
from webharness.trace.models import TaskInstance


@dataclass(frozen=True)
class PopupKind:
    name: str  # the dialog's accessible name
    dismiss: str  # the accessible name of the button that closes it
    layer: int  # stacking order: a higher layer covers a lower one


POPUPS: dict[str, PopupKind] = {  # must agree with js/perturb_popup.js
    "cookie": PopupKind("Cookie consent", "Accept cookies", 1),
    "chat": PopupKind("Chat with us", "Close chat", 2),
    "newsletter": PopupKind("Newsletter sign-up", "No thanks", 3),
}


def check_kinds(kinds: Sequence[str] | None) -> tuple[str, ...]:
    """The popup kinds to draw from; ValueError naming any unknown kind."""
    if kinds is None:
        return tuple(POPUPS)
    chosen = tuple(kinds)
    unknown = [k for k in chosen if k not in POPUPS]
    if unknown or not chosen:
        raise ValueError(f"kinds={list(chosen)!r}: popup kinds are {list(POPUPS)}")
    return chosen


def popup(
    strength: float, ctx: PerturbationContext, kinds: Sequence[str] | None = None
) -> HookFactory:
    pool = check_kinds(kinds)

    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return
        count = min(len(pool), math.ceil(3 * strength))
        latest = round(3 * (1 - strength))
        chosen = [str(k) for k in rng.choice(pool, size=count, replace=False)]
        due = {kind: int(rng.integers(0, latest + 1)) for kind in chosen}
        at_load = [k for k in chosen if due[k] == 0]
        hooks.init_scripts.append(init_script("perturb_popup.js", {"atLoad": at_load}))
        for kind in at_load:
            _record_shown(hooks, 0, kind)
        pending = sorted((k for k in chosen if due[k] > 0), key=lambda k: (due[k], k))
        shown = set(at_load)
        dismissed: set[str] = set()

        async def after_action(page: Page, step: int) -> None:
            ready = [k for k in pending if due[k] <= step]
            if ready and await settle(page, ctx):  # navigating: open them on the next step
                for kind in ready:
                    pending.remove(kind)
                    if await call(page, "popup", "show", kind):
                        shown.add(kind)
                        _record_shown(hooks, step, kind)
            if shown - dismissed:
                status = await call(page, "popup", "status") or {"dismissed": []}
                for kind in sorted(set(status["dismissed"]) & shown - dismissed):
                    dismissed.add(kind)
                    record(hooks, step, "popup", action="dismissed", popup=kind)

        hooks.after_action.append(after_action)

    return factory


def _record_shown(hooks: EpisodeHooks, step: int, kind: str) -> None:
    spec = POPUPS[kind]
    record(
        hooks,
        step,
        "popup",
        action="shown",
        popup=kind,
        name=spec.name,
        dismiss=spec.dismiss,
        layer=spec.layer,
    )
