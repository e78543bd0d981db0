"""What every perturbation shares: its context, in-page scripts, event records, settling.

A perturbation is a function ``(strength, context) -> HookFactory``. The factory runs at
each reset with a generator seeded from the env, decides in Python everything that is
random, and fills the episode's hooks; what it does is logged with :func:`record`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request

from webharness.browser.agent_world import AgentWorld
from webharness.browser.page_session import NAVIGATING
from webharness.browser.ready import wait_until_ready
from webharness.episode.hooks import EpisodeHooks
from webharness.origins import origin_of
from webharness.spec.task_spec import TaskSpec


@dataclass
class StepClock:
    """The step in progress: 0 during reset, k while step k acts, settles and is observed.

    The wrapper advances it before handing a step to the env, so hooks that run outside
    ``after_action`` (requests, served documents) know which step they belong to.
    """

    step: int = 0
    action: Any = None  # the action of the step in progress (None during reset)


@dataclass(frozen=True)
class PerturbationContext:
    """What a perturbation may know about the env it perturbs."""

    spec: TaskSpec
    clock: StepClock = field(default_factory=StepClock)
    max_steps: int = 25
    settle_cap_ms: float = 3_000

    @property
    def origins(self) -> tuple[str, ...]:
        """The origins whose requests and documents belong to the task's site."""
        return (self.spec.origin, *self.spec.allowed_origins)


@cache
def js_source(name: str) -> str:
    """A script of ``webharness/js`` (package data), by file name."""
    return resources.files("webharness.browser").joinpath(f"js/{name}").read_text(encoding="utf-8")


def init_script(name: str, config: dict[str, Any]) -> str:
    """An init script: the shared helpers, then ``js/<name>`` called with ``config``.

    The file ``js/<name>`` holds one function expression.
    """
    body = js_source(name).strip().rstrip(";")
    return f"{js_source('perturb_common.js')}\n({body})({json.dumps(config)});\n"


def record(hooks: EpisodeHooks, step: int, kind: str, **detail: Any) -> None:
    """Log an event, keeping the log in one canonical order (step, kind, detail).

    Requests that arrive together may be served in any order; sorting makes the log the
    same for the same seed. The list is replaced in one slice assignment, so a reader on
    another thread never sees it half sorted.
    """
    hooks.record(step, kind, **detail)
    hooks.events[:] = sorted(
        hooks.events,
        key=lambda e: (e.step, e.kind, json.dumps(e.detail, sort_keys=True, default=str)),
    )


def handle(key: str) -> str:
    """The JS expression of a perturbation's in-page object."""
    return f"window[Symbol.for('webharness.perturb.{key}')]"


async def call(page: Page, key: str, method: str, *args: Any) -> Any:
    """Call a perturbation's in-page method; None when the document has none or went away."""
    try:
        return await page.evaluate(
            f"([m, args]) => {{ const p = {handle(key)}; return p ? p[m](...args) : null; }}",
            [method, list(args)],
        )
    except PlaywrightError:
        return None


async def settle(page: Page, ctx: PerturbationContext) -> bool:
    """Wait, as the env does, until the action's effects are done; False if the page navigates.

    Perturbations that change the page after an action (a popup, a replaced list) wait for
    this first, so they act on the same document state every run, not on whatever an
    in-flight request has or has not finished yet.
    """
    try:
        result = await AgentWorld.of(page).call(
            "settle", {"quietMs": 10, "capMs": ctx.settle_cap_ms}, absent=NAVIGATING
        )
    except PlaywrightError:
        return False  # the document went away mid-call
    if result.get("navigating"):
        return False
    ready = ctx.spec.ready
    if ready is not None:
        await wait_until_ready(AgentWorld.of(page), ready)
    return True


def seed_of(rng: Any) -> int:
    """A 31-bit seed for an in-page generator, drawn from the episode's generator."""
    return int(rng.integers(1, 2**31 - 1))


def shown_url(url: str, ctx: PerturbationContext) -> str:
    """A URL as logged: path and query on the task's own origin, in full elsewhere."""
    if origin_of(url) == ctx.spec.origin:
        parts = urlsplit(url)
        return parts.path + (f"?{parts.query}" if parts.query else "")
    return url[:300]


def is_page_load(request: Request) -> bool:
    """A navigation of the top frame (a new page), not a sub-resource or an iframe."""
    try:
        return request.is_navigation_request() and request.frame.parent_frame is None
    except PlaywrightError:
        return False
