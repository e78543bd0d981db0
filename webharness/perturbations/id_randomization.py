"""Id randomisation: ids, classes and test hooks get random values each episode.

Selectors copied from an earlier run (``#f-name``, ``.btn-save``,
``[data-testid=save]``) stop matching; roles, labels and names stay, so semantic
targeting still works. The site must keep working too, which decides what is renamed:

* Built-in sites (their HTML passes through the harness): each id, class and test hook
  that neither the page's scripts nor the task spec mention is renamed with probability
  ``strength``, consistently in every reference (``label[for]``, ``aria-labelledby``,
  ``aria-describedby``, ``aria-controls``, ..., ``href="#id"``) and in the page's CSS
  selectors. Ids the scripts do mention keep their name (renaming them would break the
  page's own lookups; they are logged as ``kept_ids``). Elements with no id get a
  random one with probability ``strength``.
* Everywhere (also external sites, whose HTML is not rewritten): elements added after
  the page loaded get random ids where they have none; on external sites test hooks
  are given random values too. Existing ids and classes are not renamed in-page.

The same token gets the same new name on every page of the episode. Logged: per
document served, the id and hook mappings and how many classes and noise ids changed.
"""

from __future__ import annotations

import numpy as np
from playwright.async_api import Request

from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.origins import origin_of
from webharness.perturbations._html_ids import HOOK_ATTRS, Renamer, randomize
from webharness.perturbations.base import (
    PerturbationContext,
    init_script,
    is_page_load,
    record,
    seed_of,
    shown_url,
)
from webharness.trace.models import TaskInstance


def id_randomization(strength: float, ctx: PerturbationContext) -> HookFactory:
    external = ctx.spec.start_url is not None
    code = ctx.spec.model_dump_json()

    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return
        renamer = Renamer(salt=int(rng.integers(2**63)), share=strength)
        config = {
            "seed": seed_of(rng),
            "share": strength,
            "hookAttrs": list(HOOK_ATTRS),
            "renameHooks": external,
        }
        hooks.init_scripts.append(init_script("perturb_id_randomization.js", config))

        def transform(html: str) -> str:
            done = randomize(html, renamer, code)
            record(
                hooks,
                ctx.clock.step,
                "id_randomization",
                document=done.title,
                ids=done.ids,
                test_hooks=done.hooks,
                classes=len(done.classes),
                noise_ids=done.noise_ids,
                kept_ids=sorted(done.kept_ids),
            )
            return done.html

        async def on_request(request: Request) -> None:
            if is_page_load(request) and origin_of(request.url) in ctx.origins:
                record(
                    hooks,
                    ctx.clock.step,
                    "id_randomization",
                    document=shown_url(request.url, ctx),
                    in_page_only=True,
                )

        if external:
            hooks.request_hooks.append(on_request)
        else:
            hooks.html_transforms.append(transform)

    return factory
