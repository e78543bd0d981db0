"""A task's ready condition, waited for in the page (``browser/ready.py``): a selector is
visible exactly where Playwright's own check says so, the wait sees what appears later
(with or without a DOM change), an expression reads the page's own world, a wait follows
the page to its next document, and a condition that cannot hold ends the wait at once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from webharness.browser.ready import wait_until_ready
from webharness.envs import WebEvalEnv
from webharness.spec.task_spec import ReadySpec, TaskSpec

SITE = Path(__file__).parents[1] / "fixtures" / "ready_site"
LONG_MS = 20_000  # a wait that ends well before this did not wait out its bound

STATIC_CASES = [
    "shown",
    "display-none",
    "visibility-hidden",
    "zero-size",
    "transparent",
    "off-screen",
    "aria-hidden",
    "inside-hidden",
    "content-hidden",
    "closed-details",
    "empty-inline",
    "in-shadow",
]


def ready_task(**fields) -> TaskSpec:
    return TaskSpec.model_validate(
        {
            "id": "ready",
            "category": "test",
            "instruction": "Wait for the page.",
            "site": str(SITE),
            "max_steps": 10,
            "success": {"kind": "text", "text": "never"},
            **fields,
        }
    )


@pytest.fixture(scope="module")
def env(browser):
    env = WebEvalEnv(ready_task(), obs_mode="text")
    yield env
    env.close()


def wait(env, selector=None, js=None, timeout_ms=LONG_MS, run_case=None) -> tuple[bool, float]:
    """Reset, start a page case, then wait; whether the condition held, and the seconds."""
    env.reset(seed=0)
    session = env.episode.session
    if run_case:
        env.runtime.run(session.page.evaluate(f"CASES.{run_case}()"), 10)
    started = time.monotonic()
    condition = ReadySpec(selector=selector, js=js, timeout_ms=timeout_ms)
    held = env.runtime.run(wait_until_ready(session.world, condition), 60)
    return held, time.monotonic() - started


@pytest.mark.parametrize("element", STATIC_CASES)
def test_a_selector_is_visible_where_playwrights_own_check_says_so(env, element):
    held, _ = wait(env, f"#{element}", timeout_ms=0)
    playwright_says = env.runtime.run(env.episode.session.page.is_visible(f"#{element}"), 10)
    assert held == playwright_says


def test_the_static_cases_hold_both_answers():
    """The comparison above is not one-sided: the page has visible and hidden cases."""
    assert {"shown", "in-shadow", "transparent"} < set(STATIC_CASES)
    assert {"display-none", "zero-size", "closed-details"} < set(STATIC_CASES)


@pytest.mark.parametrize(
    ("case", "selector"), [("addLater", "#later"), ("animateLater", "#animated")]
)
def test_the_wait_sees_an_element_that_shows_later_with_or_without_a_dom_change(
    env, case, selector
):
    assert not wait(env, selector, timeout_ms=0)[0]  # not shown at the start
    assert wait(env, selector, run_case=case)[0]


def test_an_expression_is_evaluated_in_the_page_s_own_world(env):
    """``window.appReady`` is a global of the page's world: the agent's world never sees it."""
    held, _ = wait(env, js="window.appReady === true", run_case="appReadyLater")
    assert held
    assert not wait(env, js="window.appReady === true", timeout_ms=0)[0]


def test_a_wait_follows_the_page_to_its_next_document(env):
    assert wait(env, "#next", run_case="navigateLater")[0]
    assert env.episode.session.page.url.endswith("/next.html")
    assert wait(env, js="window.nextReady === true", run_case="navigateLater")[0]


def test_a_condition_that_is_not_met_ends_at_its_bound(env):
    held, seconds = wait(env, "#visibility-hidden", timeout_ms=300)
    assert not held and seconds >= 0.3


@pytest.mark.parametrize(
    ("selector", "js"),
    [("#shown >>> nonsense", None), ("[", None), (None, "no_such_name.x"), (None, "(")],
    ids=["playwright-syntax", "bad-css", "throws", "syntax-error"],
)
def test_a_condition_that_cannot_hold_ends_the_wait_at_once(env, selector, js):
    held, seconds = wait(env, selector, js)
    assert not held and seconds < LONG_MS / 1000 / 2


def test_both_parts_must_hold(env):
    assert wait(env, "#shown", "document.title === 'Ready'", timeout_ms=0)[0]
    assert not wait(env, "#shown", "document.title === 'Other'", timeout_ms=0)[0]
    assert not wait(env, "#display-none", "document.title === 'Ready'", timeout_ms=0)[0]


@pytest.mark.parametrize("obs_mode", ["text", "both"])  # the one-call path, and apart
@pytest.mark.parametrize(
    "ready", [None, {"selector": "#later"}, {"js": "window.appReady === true"}]
)
def test_an_observation_comes_once_the_task_s_ready_condition_holds(browser, obs_mode, ready):
    """The start page adds its content 400 ms after it looks settled; only a ready
    condition makes the first observation wait for it."""
    env = WebEvalEnv(ready_task(start_page="/later.html", ready=ready), obs_mode=obs_mode)
    try:
        obs, _ = env.reset(seed=0)
    finally:
        env.close()
    assert ("added later" in obs["axtree"]) == (ready is not None)
