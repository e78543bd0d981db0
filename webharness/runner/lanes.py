"""Which of a run's jobs may run at once. Two episodes played at the same time on one
server would see each other's records, so the episodes of a task whose server state its
workers would share run one at a time, after the others: a task on a site of its own
(``start_url``) with no app started per worker (no ``app:``, or ``app.per_worker: false``),
unless it says it keeps no state on its server (``server_state: false``)."""

from __future__ import annotations

from webharness.runner.jobs import EpisodeJob
from webharness.spec.catalogue import get_task
from webharness.spec.task_spec import TaskSpec

__all__ = ["serial_notice", "shares_server", "split_lanes"]


def shares_server(spec: TaskSpec) -> bool:
    """Whether two episodes of the task, played at once, would share one server's state."""
    if not spec.external:
        return False  # the harness serves it, per env
    if spec.app is not None:
        return not spec.app.per_worker  # each worker's env runs its own instance
    return spec.server_state


def split_lanes(jobs: list[EpisodeJob]) -> tuple[list[EpisodeJob], list[EpisodeJob]]:
    """The jobs that may run in parallel, and those to run one at a time (in run order)."""
    shared = {env_id for env_id in {j.env_id for j in jobs} if shares_server(get_task(env_id))}
    return [j for j in jobs if j.env_id not in shared], [j for j in jobs if j.env_id in shared]


def serial_notice(serial: list[EpisodeJob]) -> str:
    """One line saying which tasks run one at a time, and how to run them in parallel."""
    tasks = sorted({j.env_id for j in serial})
    shown = ", ".join(tasks[:3]) + (f" and {len(tasks) - 3} more" if len(tasks) > 3 else "")
    return (
        f"webharness: {len(serial)} episode(s) of {shown} run one at a time after the others: "
        "the workers would share their app's server. To run them in parallel, declare how "
        "to start an instance per worker (app: in task.yaml or an app.yaml, per_worker: "
        "true; docs/your-own-app.md), or write server_state: false if the app keeps no "
        "state on its server"
    )
