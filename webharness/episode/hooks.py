"""Episode hooks: how wrappers change what an episode serves and does, reproducibly.

A wrapper registers a ``HookFactory`` on the env. At each reset the env calls every
factory with a generator seeded from its own ``np_random`` and an empty ``EpisodeHooks``
to fill; the episode then applies them (scripts before the page's own, request delays,
HTML rewrites, work after each action) and the wrapper logs what it did in ``events``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from playwright.async_api import Page
from pydantic import BaseModel, ConfigDict

from webharness.browser.site import HtmlTransform, RequestHook
from webharness.trace.models import TaskInstance

AfterAction = Callable[[Page, int], Awaitable[None]]  # (page, step index) after the action ran


class PerturbationEvent(BaseModel):
    """One thing a perturbation did, and when (step 0 is the reset)."""

    model_config = ConfigDict(extra="forbid")

    step: int
    kind: str
    detail: dict[str, Any] = {}


@dataclass
class EpisodeHooks:
    init_scripts: list[str] = field(default_factory=list)  # run in every document first
    # The same, in the page agent's own world (browser/agent_world.py), after the agent:
    # for scripts that use it (the path recorder names what a person clicks through it).
    agent_world_scripts: list[str] = field(default_factory=list)
    request_hooks: list[RequestHook] = field(default_factory=list)
    html_transforms: list[HtmlTransform] = field(default_factory=list)
    after_action: list[AfterAction] = field(default_factory=list)
    instruction_transforms: list[Callable[[str], str]] = field(default_factory=list)
    events: list[PerturbationEvent] = field(default_factory=list)

    def record(self, step: int, kind: str, **detail: Any) -> None:
        self.events.append(PerturbationEvent(step=step, kind=kind, detail=detail))


HookFactory = Callable[[EpisodeHooks, np.random.Generator, TaskInstance], None]
