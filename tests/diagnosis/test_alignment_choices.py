"""Issue 18's alignment rules on synthetic traces, each on every shape of the factory:
refused actions pair with no golden step, the golden path is the one the run followed,
and the decisive step is the point of no return."""

from __future__ import annotations

import pytest

from tests.diagnosis.test_alignment import (
    DETOUR,
    SHAPES,
    Spec,
    agent,
    golden,
    key_states,
    with_detour,
    with_skip,
    with_wrong_value,
)
from webharness.action_result import ActionErrorKind, ActionResult
from webharness.diagnosis.alignment import align
from webharness.diagnosis.failures import FailureCode, annotate
from webharness.trace.models import EpisodeEnd, EpisodeTrace

PATHS = [(shape, path) for shape in SHAPES for path in (0, 1)]


def refused_from(specs: list[Spec], k: int) -> EpisodeTrace:
    """The golden actions from step k on, each refused under a popup that opened before it:
    the page stays as it was before step k (plus the popup)."""
    stuck = specs[k - 1].state
    covered = stuck.model_copy(update={"dialogs": [*stuck.dialogs, "Newsletter sign-up"]})
    edited = [*specs[:k], *(Spec(covered, s.action) for s in specs[k:])]
    trace = agent(edited)
    refused = ActionResult.failed(ActionErrorKind.NOT_INTERACTABLE, "covered by a dialog")
    steps = [
        s.model_copy(update={"action_result": refused}) if s.index >= k else s for s in trace.steps
    ]
    end = EpisodeEnd(terminated=True, success=False, ended_by="done")
    return trace.model_copy(update={"steps": steps, "end": end})


def _middle(shape: str) -> int:
    return key_states(shape) // 2 + 1


# --- refused actions -----------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_refused_actions_pair_with_no_golden_step(shape: str) -> None:
    k = _middle(shape)
    trace = refused_from(SHAPES[shape][0], k)
    result = align(trace, golden(shape))
    assert result.first_divergence_step == k
    assert all(m.agent_step < k for m in result.matched if m.golden_step > 0)
    assert set(range(k, len(trace.steps))) <= set(result.extra_steps)
    assert result.progress_rate == pytest.approx((k - 1) / key_states(shape))


@pytest.mark.parametrize("shape", SHAPES)
def test_the_fault_is_the_first_refused_action_the_run_never_got_past(shape: str) -> None:
    k = _middle(shape)
    trace = refused_from(SHAPES[shape][0], k)
    failure = annotate(trace, align(trace, golden(shape)))
    assert (failure.code, failure.step) == (FailureCode.ACTION_NO_EFFECT, k)


# --- which golden path --------------------------------------------------------------


@pytest.mark.parametrize("shape,path", PATHS)
def test_a_detour_keeps_the_path_the_run_followed(shape: str, path: int) -> None:
    goldens = [golden(shape, 0), golden(shape, 1)]
    for k in range(1, key_states(shape) + 1):
        result = align(agent(with_detour(SHAPES[shape][path], k)), goldens)
        assert (result.golden_path, result.first_divergence_step) == (
            goldens[path].golden_path,
            k,
        ), k


@pytest.mark.parametrize("shape,path", PATHS)
def test_a_skip_keeps_the_path_the_run_followed(shape: str, path: int) -> None:
    goldens = [golden(shape, 0), golden(shape, 1)]
    for k in range(2, key_states(shape)):
        result = align(agent(with_skip(SHAPES[shape][path], k)), goldens)
        assert result.golden_path == goldens[path].golden_path, k
        assert result.first_divergence_step == k, k


@pytest.mark.parametrize("shape,path", PATHS)
def test_an_early_stop_is_judged_on_the_path_it_followed_ties_to_the_shorter(
    shape: str, path: int
) -> None:
    goldens = [golden(shape, 0), golden(shape, 1)]
    for k in range(1, key_states(shape)):
        result = align(agent(SHAPES[shape][path][: k + 1]), goldens)
        scores = [align(agent(SHAPES[shape][path][: k + 1]), g).followed_steps for g in goldens]
        assert result.first_divergence_step is None, k
        assert result.followed_steps == max(scores) == k, k
        if scores[0] == scores[1]:  # both followed as far: the shorter path
            shorter = min(goldens, key=lambda g: len(g.steps)).golden_path
            if len(goldens[0].steps) != len(goldens[1].steps):
                assert result.golden_path == shorter, k
        else:
            assert result.golden_path == goldens[path].golden_path, k


# --- the decisive step ---------------------------------------------------------------


def _stopped(trace: EpisodeTrace) -> EpisodeTrace:
    return trace.model_copy(
        update={"end": EpisodeEnd(terminated=True, success=False, ended_by="done")}
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_a_harmless_detour_is_no_decisive_step(shape: str) -> None:
    specs = SHAPES[shape][0]
    half = _middle(shape)
    trace = agent(with_detour(specs, half)[: half + 3])  # the detour, back, one more step
    result = align(trace, [golden(shape, 0), golden(shape, 1)])
    assert result.first_divergence_step == half
    assert result.decisive_step is None
    assert annotate(_stopped(trace), result).decisive_step is None


@pytest.mark.parametrize("shape", SHAPES)
def test_leaving_for_a_wrong_page_and_stopping_there_is_decisive_at_that_choice(
    shape: str,
) -> None:
    specs = SHAPES[shape][0]
    k = _middle(shape)
    trace = agent([*specs[:k], Spec(DETOUR, ("click", "link", "Help"))])
    result = align(trace, [golden(shape, 0), golden(shape, 1)])
    assert result.decisive_step == k


@pytest.mark.parametrize("shape", ["form", "shop"])
def test_a_wrong_value_is_decisive_where_it_is_committed(shape: str) -> None:
    specs = SHAPES[shape][0]
    k = next(i for i, s in enumerate(specs) if s.action and s.action[0] == "fill")
    wrong = with_wrong_value(specs, k)
    committed = next(i for i in range(k, len(wrong)) if wrong[i].state.app != specs[i].state.app)
    result = align(agent(wrong), [golden(shape, 0), golden(shape, 1)])
    assert result.first_divergence_step == k
    assert result.decisive_step == committed
    # typed but not saved: nothing to undo that the path does not overwrite itself
    assert align(agent(wrong[:committed]), golden(shape)).decisive_step is None


@pytest.mark.parametrize("shape,path", PATHS)
def test_a_run_on_a_golden_path_has_no_decisive_step(shape: str, path: int) -> None:
    result = align(agent(SHAPES[shape][path]), [golden(shape, 0), golden(shape, 1)])
    assert result.decisive_step is None
