"""Pages that fight the harness: a page that navigates itself every 10 ms never makes a
step a browser error or the episode not executable; its steps are observed when the page
holds still, or end as ``page_unsettled``, the page's doing."""

from __future__ import annotations

from pathlib import Path

import pytest

from webharness.action_result import ActionErrorKind
from webharness.envs import WebEvalEnv
from webharness.spec.task_spec import TaskSpec

RESTLESS = Path(__file__).parents[1] / "fixtures" / "restless_site"


@pytest.fixture(scope="module")
def restless_env(browser):
    spec = TaskSpec.model_validate(
        {
            "id": "restless",
            "category": "test",
            "instruction": "Press the button.",
            "site": str(RESTLESS),
            "max_steps": 100,
            "success": {"kind": "text", "text": "never shown"},
        }
    )
    env = WebEvalEnv(spec, obs_mode="text", action_timeout_ms=2_000, settle_cap_ms=1_500)
    yield env
    env.close()


@pytest.mark.parametrize(
    "action", ["scroll(0, 100)", "noop()", "wait(100)", "click('e2')", "press('e2', 'Enter')"]
)
def test_a_page_that_keeps_navigating_is_never_a_browser_error(restless_env, action):
    _, info = restless_env.reset(seed=0)
    seen = set()
    for _ in range(6):
        obs, _, terminated, truncated, info = restless_env.step(action)
        error = info["action_result"].error
        seen.add(error)
        assert error is not ActionErrorKind.BROWSER_ERROR, info["action_result"].message
        assert not (terminated or truncated), info.get("episode_end")
        assert 'heading "Restless"' in obs["axtree"]  # an observation of the page, always
    assert seen <= {None, ActionErrorKind.PAGE_UNSETTLED, ActionErrorKind.STALE_REF}
