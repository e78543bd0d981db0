"""The suite's fixtures and hooks: the browser mark, a kept browser per session, envs closed
after use. Helpers a test imports live in ``tests/support/``."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import gymnasium as gym
import pytest

import webharness  # noqa: F401  (registers the WebEval/* ids)
from webharness.browser.host import BROWSER_ENV_VAR
from webharness.golden.cache import CACHE_DIR_ENV

# Run by the interpreter of .venv-browser-use (tests/external/test_browser_use.py), it imports
# browser-use, which .venv does not have: no docstring examples to collect there.
collect_ignore = ["support/browser_use_agent.py"]
# What a test outside the ``browser`` mark finds as its Chromium (the error names it).
NOT_MARKED_BROWSER = "/no-browser: this test is not marked browser; request the `browser` fixture"


# The longest modules start first, longest first (scripts/test.sh keeps this order with
# --no-loadscope-reorder): a free worker takes the next file, so this is longest-first list
# scheduling, and the many short modules left at the end even out the workers' ends. By
# their test time in CI (2026-12-04, mean of two clean runs: 206 s down to 14 s). A module
# of 15-20 s left off the list ran last and kept one worker busy alone for its length.
LONGEST_FIRST = (
    "external/test_browser_use.py",  # 200-280 s on one worker (2026-12-06)
    "external/test_agents_sdk.py",
    "golden/test_pixel_twins.py",  # about 190 s on one worker (2026-12-06, not yet in CI)
    "wrappers/test_perturbations.py",
    "tasks/test_golden_paths.py",
    "miniwob/test_check_env.py",
    "reliability/test_soak.py",
    "miniwob/test_pointer_tasks.py",  # 23-58 s (2026-12-06)
    "reliability/test_runner_faults.py",
    "diagnosis/test_failure_suite.py",
    "runner/test_ray_backend.py",
    "external/test_mcp_agent_in_runner.py",
    "envs/test_external_app_end_to_end.py",
    "reliability/test_crash_recovery.py",
    "runner/test_pool.py",
    "diagnosis/test_alignment_scenarios.py",
    "envs/test_web_eval_env.py",
    "envs/test_task_folder_end_to_end.py",
    "test_packaging.py",
    "browser/test_shared.py",
    "runner/test_golden_cache.py",
    "episode/test_components.py",
    "reliability/test_hostile_pages.py",
    "browser/test_other_origin_frames.py",
    "reliability/test_hostile_input.py",
    "reliability/test_egress.py",
    "reliability/test_containment.py",
    "agents/test_heuristic.py",
    "golden/test_path_recorder.py",
    "reporting/test_render.py",
    "wrappers/test_perturbations_on_an_app.py",
    "wrappers/test_gymnasium_wrappers.py",
    "episode/test_executor.py",
    "trace/test_playwright_trace.py",
    "miniwob/test_scripted_agent.py",
    "wrappers/test_diagnosis.py",
)


_SESSION_CACHE: list[str] = []  # the golden-trace cache this session made (removed at its end)


def pytest_configure(config: pytest.Config) -> None:
    # A lane without browser tests fails any launch at all, even from a module's fixture
    # that a test uses without asking for ``browser`` (so the mark is checked there too).
    if "not browser" in (config.getoption("markexpr") or ""):
        os.environ[BROWSER_ENV_VAR] = NOT_MARKED_BROWSER
    # Runs share one golden-trace cache for the session, not the user's: made by the
    # controlling process, whose environment the xdist workers and the CLI runs inherit.
    if not os.environ.get(CACHE_DIR_ENV):
        _SESSION_CACHE.append(tempfile.mkdtemp(prefix="webharness-golden-cache-"))
        os.environ[CACHE_DIR_ENV] = _SESSION_CACHE[0]


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _SESSION_CACHE:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the marks set here
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::")[0]
        return next(
            (i for i, name in enumerate(LONGEST_FIRST) if path.endswith(name)), len(LONGEST_FIRST)
        )

    items.sort(key=rank)  # stable: the rest keep their order


class KeptBrowser:
    """The session's Chromium, kept open from the first module that needs it to the end:
    a launch per test process, not per module (≈0.5 s each, for some 60 modules)."""

    def __init__(self) -> None:
        self._kept: ExitStack | None = None

    def hold(self) -> None:
        if self._kept is None:
            self._kept = ExitStack()
            self._kept.enter_context(webharness.keep_browser())

    def release(self) -> None:
        if self._kept is not None:
            self._kept.close()
            self._kept = None


@pytest.fixture(scope="session")
def _kept_browser() -> Iterator[KeptBrowser]:
    kept = KeptBrowser()
    yield kept
    kept.release()


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest, _kept_browser: KeptBrowser) -> Iterator[None]:
    """Chromium for the tests that need one: the session's envs share one kept browser.
    Every test that needs it gets the ``browser`` mark.

    A module that counts browser processes itself is marked ``own_browser``: the kept
    browser is closed before it, and it launches its own.
    """
    if request.node.get_closest_marker("own_browser"):
        _kept_browser.release()
    else:
        _kept_browser.hold()
    yield


@pytest.fixture(autouse=True)
def _no_browser_unless_marked(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test outside the ``browser`` mark cannot launch Chromium (nor can the processes it
    starts): the mark stays true, so ``-m "not browser"`` never opens a browser."""
    if "browser" not in request.fixturenames:
        monkeypatch.setenv(BROWSER_ENV_VAR, NOT_MARKED_BROWSER)


@pytest.fixture
def make_env(browser: None) -> Iterator[Callable[..., gym.Env]]:
    """Make envs by id (``gym.make`` kwargs allowed); all are closed after the test."""
    made: list[gym.Env] = []

    def factory(env_id: str, **kwargs: Any) -> gym.Env:
        env = gym.make(env_id, **kwargs)
        made.append(env)
        return env

    yield factory
    for env in made:
        env.close()
