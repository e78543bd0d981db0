"""Golden traces for the code that keeps them in memory (the ``GoldenTraceAlignment``
wrapper, ``testing.Bench``), shared with the runner through the golden-trace cache.

A task's golden traces for a seed are the same wherever they are recorded, so these read
them from the cache the runner uses (``golden.cache``), recorded into it first when it has
none. They are recorded in memory instead when the task cannot be cached (an app of the
user's own that declares no version, no seed) or the cache cannot be used (read-only,
full): a warning names the folder once, and the traces are still right. A recording
with a failed step (a crash, a timeout on a starved machine) is not kept: a warning names
it, and it is recorded again in memory. From the cache, the traces are read back from its
files, as the runner reads its own.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

import gymnasium as gym

from webharness.golden.cache import GoldenCache, default_cache_dir, golden_key
from webharness.golden.play import golden_traces, sound_entry, warn_if_spoiled
from webharness.spec.task_spec import TaskSpec
from webharness.trace.io import load_traces_in
from webharness.trace.models import EpisodeTrace

__all__ = ["DEFAULT_CACHE", "CacheChoice", "CachedGoldens"]

_log = logging.getLogger(__name__)


class _DefaultCache:
    """The user's golden-trace cache (``golden.cache.default_cache_dir``)."""

    def __repr__(self) -> str:
        return "DEFAULT_CACHE"


DEFAULT_CACHE = _DefaultCache()
CacheChoice: TypeAlias = str | os.PathLike[str] | None | _DefaultCache


class CachedGoldens:
    """A task's golden traces (no screenshots) by seed, from the golden-trace cache.

    Args:
        golden_cache: the cache's folder; ``DEFAULT_CACHE`` (the default) is the runner's
            default, ``$WEBHARNESS_CACHE_DIR`` or ``~/.cache/webharness/golden``; None
            records them every time, in memory.
    """

    def __init__(self, golden_cache: CacheChoice = DEFAULT_CACHE) -> None:
        if isinstance(golden_cache, _DefaultCache):
            golden_cache = default_cache_dir()
        self.cache = GoldenCache(golden_cache) if golden_cache is not None else None

    def traces(
        self,
        spec: TaskSpec,
        seed: int | None,
        viewport: tuple[int, int],
        clean_env: Callable[[], gym.Env],
    ) -> list[EpisodeTrace]:
        """The golden traces of ``spec`` for ``seed`` at ``viewport``; ``clean_env`` gives
        the unperturbed env (of that viewport) to record them on, asked only when needed."""

        def record(into: Path) -> list[EpisodeTrace]:
            return golden_traces(clean_env(), seed, into, screenshots=False)

        key = golden_key(spec, seed, screenshots=False, viewport=viewport)
        if self.cache is not None and key is not None:
            try:
                entry = sound_entry(self.cache, key, record, _log)
                if entry is not None:
                    return load_traces_in(entry)
            except OSError as exc:  # read-only, full: go on without the cache
                _log.warning(
                    "webharness: the golden-trace cache %s cannot be used (%s); golden traces "
                    "are recorded in memory instead (golden_cache=None stops using it)",
                    self.cache.root,
                    exc,
                )
                self.cache = None
        return warn_if_spoiled(golden_traces(clean_env(), seed, screenshots=False), _log)
