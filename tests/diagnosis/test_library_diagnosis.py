"""The diagnosis on the team's own database app (``examples/library_app``, Shelfwise): every
reset re-inserts its books under new AUTOINCREMENT ids, so golden traces recorded first and
the agent's runs after them visit other ``/books/<id>/...`` URLs.

- ids: ``delete_book`` and ``edit_filtered`` oracle runs align 1:1 with their goldens on
  seeds 0-4; an agent that opens another book diverges at that step;
- a wrong genre saved (the change list it lands on has a ``required`` select the browser
  flags from load) is ``task_incomplete`` at the choice, decision stage;
- the server's rejection of an ISBN is ``validation_error`` naming the app's own words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import gymnasium as gym
import pytest

from tests.support.library import TASKS
from tests.support.registry import registrations_undone
from tests.support.wrong_choices import instead, other_option, wrong_choice_saved
from webharness import register_tasks
from webharness.diagnosis.failures import FailureCode, Stage
from webharness.diagnosis.scoring import score_trace
from webharness.golden.oracle import OracleAgent
from webharness.golden.play import golden_traces, play_episode
from webharness.testing import FAULTS, FaultyAgent
from webharness.testing.fault_agent import FaultContext, Planned
from webharness.trace.models import EpisodeTrace

pytestmark = pytest.mark.slow

SEEDS = range(5)
_EDIT_URL = re.compile(r"/books/(\d+)/edit")


@pytest.fixture(scope="module")
def envs(browser: None) -> Iterator[dict[str, gym.Env]]:
    """Each env starts its own instance of the app (``app.yaml``)."""
    with registrations_undone():
        ids = register_tasks(TASKS, "LibraryDiag")
        made = {i.split("/")[1].removesuffix("-v0"): gym.make(i, obs_mode="text") for i in ids}
        yield made
        for env in made.values():
            env.close()


def _goldens(env: gym.Env, seeds: range = SEEDS) -> dict[int, list[EpisodeTrace]]:
    return {seed: golden_traces(env, seed, screenshots=False) for seed in seeds}


def _book_ids(trace: EpisodeTrace) -> set[str]:
    return {m.group(1) for s in trace.steps if (m := _EDIT_URL.search(s.state.url))}


@pytest.mark.parametrize("task", ["delete_book", "edit_filtered"])
def test_the_oracle_aligns_one_to_one_with_goldens_recorded_under_other_ids(envs, task):
    env = envs[task]
    goldens = _goldens(env)  # recorded first: the agent's resets come after, new ids
    for seed in SEEDS:
        trace = play_episode(env, OracleAgent(), seed, screenshots=False)
        (golden,) = goldens[seed]
        assert _book_ids(trace) and _book_ids(trace).isdisjoint(_book_ids(golden))
        score = score_trace(trace, goldens[seed])
        alignment = score.alignment
        assert alignment is not None and trace.end is not None and trace.end.success
        assert (alignment.progress_rate, alignment.first_divergence_step) == (1.0, None), seed
        assert len(alignment.matched) == len(golden.steps) == len(trace.steps)


def _another_book(ctx: FaultContext) -> list[Planned]:
    """Open a book that is not the task's (its link in the list)."""
    (lanterns,) = ctx.state.find("link", "Lanterns")
    return [f'click("{lanterns.ref}")']


def test_an_agent_opening_another_book_diverges_where_it_opened_it(envs):
    env = envs["delete_book"]
    goldens = _goldens(env, range(1))[0]
    agent = FaultyAgent(instead("other_book", _another_book), at=1, env=env)
    trace = play_episode(env, agent, 0, screenshots=False)
    assert trace.steps[1].state.url.endswith("/edit") and not trace.end.success
    score = score_trace(trace, goldens)
    assert score.alignment is not None and score.alignment.first_divergence_step == 1
    assert score.alignment.progress_rate < 1.0
    assert (score.failure.code, score.failure.step) == (FailureCode.TASK_INCOMPLETE, 1)


def test_a_wrong_genre_saved_is_task_incomplete_at_the_choice_not_a_rejection(envs):
    """The save lands on the change list, whose bulk-action select is required and holds
    the browser's "Please select an item in the list." from load: not the agent's doing."""
    env = envs["add_book"]
    goldens = _goldens(env, range(1))[0]
    genre = other_option("Fiction", "History")  # golden step 8 picks the genre
    failure = wrong_choice_saved(env, goldens, genre, at=8, seed=0, untouched="Action")
    assert all(n.code is not FailureCode.VALIDATION_ERROR for n in failure.step_notes)


def test_the_server_rejecting_the_isbn_is_a_validation_error_in_the_app_s_words(envs):
    env = envs["fix_isbn"]
    goldens = _goldens(env, range(1))[0]
    agent = FaultyAgent(FAULTS["never_fix"], at=7, env=env)  # done() instead of the fix
    trace = play_episode(env, agent, 0, screenshots=False)
    failure = score_trace(trace, goldens).failure
    assert (failure.code, failure.step, failure.stage) == (
        FailureCode.VALIDATION_ERROR,
        6,
        Stage.UNDERSTANDING,
    ), failure.message
    (isbn,) = failure.evidence.invalid_fields or []
    assert (isbn.name, isbn.rejected_by) == ("ISBN", "app")
    assert isbn.message.startswith("Enter an ISBN-13: 13 digits") and "no spaces" in isbn.message
    assert "(ISBN: Enter an ISBN-13" in failure.message and "the app rejected" in failure.message
