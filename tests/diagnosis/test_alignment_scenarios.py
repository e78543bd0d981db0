"""Alignment on real scenarios: the oracle's own run follows every golden path exactly.

The oracle plays each golden path of every registered scenario as an agent, and the run
is scored as the runner scores it (``score_trace`` against the golden traces recorded for
the same seed). A run identical in meaning to a golden one must align perfectly, whatever
the path's shape: repeated states (richtext clicks the tab that is already selected),
waits for async content, several pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import pytest

from webharness.diagnosis.alignment import align
from webharness.diagnosis.scoring import score_trace
from webharness.diagnosis.similarity import state_similarity
from webharness.golden.oracle import OracleAgent
from webharness.golden.play import play_episode
from webharness.spec.catalogue import get_task, task_names
from webharness.spec.task_spec import TaskSpec
from webharness.testing import SEED, Bench, multi_path_scenarios
from webharness.trace.models import EpisodeTrace, StepRecord, TaskInstance


@pytest.fixture(scope="module")
def bench(browser: None) -> Iterator[Bench]:
    """One env per scenario at a time (closed on to the next), golden traces kept per scenario."""
    with closing(Bench(SEED)) as kept:
        yield kept


@pytest.mark.parametrize("scenario", task_names())
def test_the_oracle_s_own_run_aligns_perfectly_with_every_golden_path(
    bench: Bench, scenario: str
) -> None:
    goldens = bench.goldens(scenario)
    for golden in goldens:
        run = play_episode(
            bench.env(scenario), OracleAgent(golden.golden_path), SEED, screenshots=False
        )
        alignment = score_trace(run, goldens).alignment
        summary = (
            golden.golden_path,
            alignment.golden_path,
            alignment.skipped_golden_steps,
            alignment.extra_steps,
            alignment.wrong_actions,
        )
        assert alignment.fidelity == 1.0, summary
        assert alignment.progress_rate == 1.0, summary
        assert alignment.first_divergence_step is None, summary
        assert alignment.per_golden[golden.golden_path] == 1.0, summary  # its own path, too


class OracleLeavingOutTheFirstStep(OracleAgent):
    """The oracle playing its golden path without the path's first step."""

    def reset(self, instance: TaskInstance, spec: TaskSpec | None = None) -> None:
        spec = spec or get_task(instance.task_id)
        path = next(p for p in spec.golden_paths if p.id == self.path_id)
        shorter = path.model_copy(update={"steps": path.steps[1:]})
        super().reset(instance, spec.model_copy(update={"golden_paths": [shorter]}))


def test_a_run_leaving_out_a_golden_first_step_that_changes_nothing_does_not_diverge_at_the_start(
    bench: Bench,
) -> None:
    golden = next(g for g in bench.goldens("richtext") if g.golden_path == "type-and-shortcut")
    assert (
        state_similarity(golden.steps[1].state, golden.steps[0].state) == 1.0
    )  # its tab was selected
    agent = OracleLeavingOutTheFirstStep("type-and-shortcut")
    run = play_episode(bench.env("richtext"), agent, SEED, screenshots=False)
    alignment = align(run, golden)
    assert alignment.first_divergence_step is None  # the start used to pair with golden step 1: "0"
    assert alignment.progress_rate == 1.0
    assert alignment.matched[0].golden_step == 0


# --- which golden path, on every multi-path scenario: edited golden traces ----------


def _reindexed(steps: list[StepRecord]) -> list[StepRecord]:
    return [s.model_copy(update={"index": n}) for n, s in enumerate(steps)]


def _last_changing_step(trace: EpisodeTrace) -> int:
    """The last golden step whose state differs from the one before (a key step)."""
    return max(
        k
        for k in range(1, len(trace.steps))
        if state_similarity(trace.steps[k].state, trace.steps[k - 1].state) < 1.0
    )


def _detour_before(trace: EpisodeTrace, k: int) -> EpisodeTrace:
    """Before step k: a page off the path, then back to the state before k."""
    before = trace.steps[k - 1]
    away = before.state.model_copy(
        update={"url": "http://webeval.test/elsewhere", "title": "Elsewhere", "headings": []}
    )
    extra = [
        StepRecord(index=0, action='click("e1")', state=away),
        StepRecord(index=0, action="go_back()", state=before.state),
    ]
    steps = _reindexed([*trace.steps[:k], *extra, *trace.steps[k:]])
    return trace.model_copy(update={"steps": steps})


EDITS = ("detour", "skip", "stop")


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("scenario", multi_path_scenarios())
def test_an_edited_run_is_judged_on_the_golden_path_it_followed(
    bench: Bench, scenario: str, edit: str
) -> None:
    """A detour, a skipped step or an early stop late on each path: the alignment keeps
    the path the run followed, puts a detour's divergence at the detour and finds none
    in an early stop. (A skip cut out of a recorded run leaves the skipped step's effect
    in the states after it, so the run reads as two steps done in one, not as a corner
    cut: its divergence is tested on synthetic runs in test_alignment.py.)"""
    goldens = bench.goldens(scenario)
    for own in goldens:
        k = _last_changing_step(own)
        if edit == "detour":
            run, expected = _detour_before(own, k), k
        elif edit == "skip":  # leave out the key step before the last one
            k -= 1
            while k > 1 and state_similarity(own.steps[k].state, own.steps[k - 1].state) == 1.0:
                k -= 1  # a step that changes nothing is reached all the same: skip a real one
            steps = [*own.steps[:k], *own.steps[k + 1 :]]
            run, expected = own.model_copy(update={"steps": _reindexed(steps)}), None
        else:
            run, expected = own.model_copy(update={"steps": own.steps[:k]}), None
        alignment = align(run.model_copy(update={"golden_path": None}), goldens)
        summary = (own.golden_path, alignment.golden_path, alignment.followed_steps, k)
        assert alignment.golden_path == own.golden_path, summary
        if edit != "skip":
            assert alignment.first_divergence_step == expected, summary
