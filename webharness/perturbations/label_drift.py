"""Label drift: button and link words change to synonyms ("Save" → "Store").

Each UI verb of :data:`SYNONYMS` drifts with probability ``strength`` to one of its
synonyms (seeded); the mapping is applied, whole words, case kept, in one pass, to the
text, ``aria-label`` and submit-input value of every element whose role is button or
link, on every page and to whatever the page adds later. Names the task's success
criteria rely on are left alone. Logged at step 0: the mapping.
The replacement itself is :func:`webharness.drift.drift_text`, which the oracle shares.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from webharness.drift import DRIFTING_ROLES
from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.perturbations.base import PerturbationContext, init_script, record
from webharness.spec.templating import fill
from webharness.trace.models import TaskInstance

SYNONYMS: dict[str, tuple[str, ...]] = {
    "Submit": ("Send", "Confirm"),
    "Save": ("Store", "Keep"),
    "Sign in": ("Log in",),
    "Log in": ("Sign in",),
    "Sign out": ("Log out",),
    "Sign up": ("Register",),
    "Register": ("Sign up",),
    "Search": ("Find", "Look up"),
    "Add": ("Create",),
    "New": ("Create",),
    "Delete": ("Remove", "Erase"),
    "Remove": ("Delete",),
    "Cancel": ("Discard", "Abort"),
    "Close": ("Dismiss",),
    "Send": ("Post", "Dispatch"),
    "Continue": ("Proceed",),
    "Next": ("Continue",),
    "Back": ("Return",),
    "Edit": ("Modify", "Change"),
    "Archive": ("Stow", "Shelve"),
    "Verify": ("Check", "Validate"),
    "Confirm": ("Approve",),
    "Apply": ("Use",),
    "Open": ("View",),
    "View": ("Show",),
    "Compose": ("Write",),
}


def label_drift(strength: float, ctx: PerturbationContext) -> HookFactory:
    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return
        mapping = {}
        for word in sorted(SYNONYMS):
            drifts = rng.random() < strength
            choice = SYNONYMS[word][int(rng.integers(len(SYNONYMS[word])))]
            if drifts:
                mapping[word] = choice
        if not mapping:
            return
        kept = _criteria_strings(ctx.spec.success.model_dump(mode="json"), instance.params)
        hooks.init_scripts.append(
            init_script(
                "perturb_label_drift.js", {"pairs": sorted(mapping.items()), "protected": kept}
            )
        )
        record(hooks, 0, "label_drift", map=mapping, roles=sorted(DRIFTING_ROLES))

    return factory


def _criteria_strings(criteria: Any, params: dict[str, Any]) -> list[str]:
    """Every string in the success criteria, parameters filled in: names never to drift."""
    try:
        filled = fill(criteria, params)
    except KeyError:
        filled = criteria
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(filled)
    return sorted(set(found))
