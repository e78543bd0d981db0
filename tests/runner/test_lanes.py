"""Which jobs run at once: a task whose workers would share its server's state (a site of
its own with no app started per worker, unless it keeps no state there) runs one episode
at a time, after the others, with a notice saying how to run it in parallel."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.registry import FIXTURES, registrations_undone
from webharness import register_tasks
from webharness.runner.jobs import EpisodeJob
from webharness.runner.lanes import serial_notice, shares_server, split_lanes
from webharness.spec.catalogue import get_task
from webharness.spec.task_spec import load_task

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library_tasks"
CHORES = FIXTURES / "chores_task" / "task.yaml"


def test_only_a_task_whose_workers_would_share_a_server_runs_alone():
    library = load_task(LIBRARY / "add_book" / "task.yaml")
    assert library.app is not None and not shares_server(library)  # an instance per worker
    one_instance = library.app.model_copy(update={"per_worker": False})
    assert shares_server(library.model_copy(update={"app": one_instance}))
    chores = load_task(CHORES)
    assert chores.app is None and shares_server(chores)  # a server the workers share
    assert not shares_server(chores.model_copy(update={"server_state": False}))
    assert not shares_server(get_task("WebEval/form-v0"))  # served by the harness, per env


def test_the_serial_lane_keeps_the_run_order_and_its_notice_says_how_to_leave_it():
    with registrations_undone():
        (chores,) = register_tasks(CHORES.parent, "Lanes")
        books = register_tasks(LIBRARY, "Lanes")
        env_ids = [books[0], chores, "WebEval/form-v0", books[1]]
        jobs = [
            EpisodeJob(agent="oracle", env_id=e, seed=s, run_dir="runs/x")
            for e in env_ids
            for s in (0, 1)
        ]
        parallel, serial = split_lanes(jobs)
    assert [(j.env_id, j.seed) for j in serial] == [(chores, 0), (chores, 1)]
    assert parallel == [j for j in jobs if j.env_id != chores]
    notice = serial_notice(serial)
    assert "\n" not in notice and chores in notice and "2 episode(s)" in notice
    assert "app:" in notice and "server_state: false" in notice


@pytest.mark.parametrize("count", [4, 5])
def test_a_notice_names_three_tasks_and_counts_the_rest(count):
    jobs = [
        EpisodeJob(agent="oracle", env_id=f"X/t{i}-v0", seed=0, run_dir="r") for i in range(count)
    ]
    assert f"and {count - 3} more" in serial_notice(jobs)
