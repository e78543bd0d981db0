"""A page that judges its own episode (MiniWoB++): the ``page_reward`` criterion, the
``seed`` parameter, the page's own start, and pack ids; judged on hand-made page values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pydantic import TypeAdapter

from webharness.errors import TaskSpecError
from webharness.semantic import SemanticState
from webharness.spec.criteria import CriteriaContext, Criterion
from webharness.spec.criteria_tree import js_expressions, page_outcome
from webharness.spec.page_reward import PageOutcome
from webharness.spec.params import draw_params
from webharness.spec.task_spec import TaskSpec, instantiate

CRITERION: TypeAdapter[Any] = TypeAdapter(Criterion)
DONE, RAW = "WOB_DONE_GLOBAL", "WOB_RAW_REWARD_GLOBAL"


def page(done: Any, raw: Any, errors: dict[str, str] | None = None) -> CriteriaContext:
    state = SemanticState(url="http://webeval.test/miniwob/x.html")
    return CriteriaContext(state, js={DONE: done, RAW: raw}, js_errors=errors or {})


@pytest.mark.parametrize(
    ("done", "raw", "holds"),
    [
        (True, 1, True),
        (True, 1.0, True),
        (True, 0.1, False),  # find-greatest's partial reward for a wrong card
        (True, 0.99, False),
        (True, -1, False),
        (False, 0, False),  # the episode runs on
        (True, False, False),  # a page whose reward is no number
    ],
)
def test_success_is_a_finished_episode_with_the_full_raw_reward(done, raw, holds) -> None:
    assert CRITERION.validate_python({"kind": "page_reward"}).holds(page(done, raw)) is holds


def test_a_closeness_task_sets_its_own_threshold() -> None:
    near = CRITERION.validate_python({"kind": "page_reward", "threshold": 0.9})
    assert near.holds(page(True, 0.93)) and not near.holds(page(True, 0.66))


def test_the_outcome_is_the_pages_done_and_reward_and_a_throwing_page_is_not_done() -> None:
    tree = CRITERION.validate_python({"kind": "all", "of": [{"kind": "page_reward"}]})
    assert page_outcome(tree, page(True, -1)) == PageOutcome(True, -1.0)
    assert page_outcome(tree, page(False, 0)) == PageOutcome(False, 0.0)
    thrown = page(False, False, {DONE: "ReferenceError: WOB_DONE_GLOBAL is not defined"})
    assert page_outcome(tree, thrown) == PageOutcome(False, 0.0) and not tree.holds(thrown)
    assert page_outcome(CRITERION.validate_python({"kind": "url", "path": "/"}), thrown) is None


def test_the_page_evaluates_both_expressions() -> None:
    reward = CRITERION.validate_python({"kind": "page_reward", "done": "d()", "reward": "r()"})
    assert js_expressions(reward) == ["d()", "r()"]


def spec(**changes: Any) -> dict[str, Any]:
    return {
        "id": "miniwob.click-tab-2-hard",
        "category": "miniwob",
        "instruction": "the page states it",
        "site": None,
        "start_url": "http://127.0.0.1:8000/miniwob/click-tab-2-hard.html",
        "params": {"page_seed": {"kind": "seed"}},
        "page_start": {"script": "Math.seedrandom({{page_seed}}); core.startEpisodeReal();"},
        "success": {"kind": "page_reward"},
        **changes,
    }


def test_a_pack_id_keeps_its_tasks_own_name_after_the_prefix() -> None:
    assert TaskSpec.model_validate(spec()).env_id == "WebEval/miniwob.click-tab-2-hard-v0"
    for bad in ("miniwob.", "miniwob.Click", "miniwob.a.b", "click-tab", "miniwob.x-"):
        with pytest.raises(TaskSpecError, match="id"):
            TaskSpec.model_validate(spec(id=bad))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("success", {"kind": "page_reward", "reward": "WOB_RAW_REWARD_GLOBAL +"}),
        ("page_start", {"script": "core.startEpisodeReal(", "goal": "core.getUtterance()"}),
        ("page_start", {"script": "core.startEpisodeReal();", "goal": "core.getUtterance("}),
    ],
)
def test_the_pages_javascript_is_checked_at_load(field, value) -> None:
    with pytest.raises(TaskSpecError, match="not valid JavaScript"):
        TaskSpec.model_validate(spec(**{field: value}))


def test_a_seed_parameter_is_the_episodes_seed_and_fills_the_start_script() -> None:
    task = TaskSpec.model_validate(spec())
    filled = instantiate(task, 7, np.random.default_rng(7)).spec.page_start
    assert filled is not None and filled.script.startswith("Math.seedrandom(7);")
    specs = dict(task.params)
    drawn = [draw_params(specs, np.random.default_rng(1))["page_seed"] for _ in range(2)]
    assert drawn[0] == drawn[1] and 0 <= drawn[0] < 2**31  # no seed: from the generator
