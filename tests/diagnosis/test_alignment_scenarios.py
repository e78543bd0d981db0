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
from webharness.testing import SEED, Bench
from webharness.trace.models import TaskInstance


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
