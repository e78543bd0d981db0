"""Latency: the site's documents and API calls answer late.

Each request of the site (a document, a fetch or an XHR to the task's origins) waits
``u² × MAX_DELAY_S × strength`` seconds before it is served, with ``u`` uniform in [0, 1]
(so most requests are a little late and a few very late, as on real networks), drawn
from the episode's generator *per request*: keyed on method, URL and how many times that
same request came before, so the same seed delays the same request by the same amount
whatever order concurrent requests arrive in.
"""

from __future__ import annotations

import asyncio
import zlib
from collections import Counter

import numpy as np
from playwright.async_api import Request

from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.origins import origin_of
from webharness.perturbations.base import PerturbationContext, record, shown_url
from webharness.trace.models import TaskInstance

MAX_DELAY_S = 2.5  # at strength 1
DELAYED_TYPES = frozenset({"document", "fetch", "xhr"})


def latency(strength: float, ctx: PerturbationContext) -> HookFactory:
    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return
        base = int(rng.integers(2**32))
        seen: Counter[str] = Counter()

        async def delay(request: Request) -> None:
            if (
                request.resource_type not in DELAYED_TYPES
                or origin_of(request.url) not in ctx.origins
            ):
                return
            key = f"{request.method} {request.url}"
            occurrence = seen[key]
            seen[key] += 1
            u = np.random.default_rng([base, zlib.crc32(key.encode()), occurrence]).random()
            seconds = round(float(u) ** 2 * MAX_DELAY_S * strength, 3)
            record(
                hooks,
                ctx.clock.step,
                "latency",
                method=request.method,
                url=shown_url(request.url, ctx),
                resource=request.resource_type,
                occurrence=occurrence,
                delay_ms=round(seconds * 1000),
            )
            await asyncio.sleep(seconds)  # the perturbation itself: a seeded, bounded delay

        hooks.request_hooks.append(delay)

    return factory
