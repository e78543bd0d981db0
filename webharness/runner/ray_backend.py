"""Running episode jobs as Ray tasks, so a large evaluation can spread over a cluster.

Ray is an optional extra (``pip install webharness[ray]``), imported only here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from webharness.errors import WebHarnessError
from webharness.reporting.records import EvalAttempt
from webharness.runner.jobs import EpisodeJob
from webharness.runner.worker import current_worker, start_worker


class RayBackendError(WebHarnessError, RuntimeError):
    """Ray could not be reached or failed under the run; the message is one line."""


def ray_results(
    jobs: list[EpisodeJob], address: str | None, parallelism: int
) -> Iterator[EvalAttempt]:
    """Submit every job and yield results as they finish.

    Connects the way Ray users expect (see ``connect``); Ray's own errors become one
    ``RayBackendError`` line.
    """
    try:
        import ray
    except ImportError:
        raise WebHarnessError("the Ray backend needs Ray: pip install 'webharness[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        connect(ray, address, parallelism)
    pending: list[Any] = []
    try:
        remote_job = ray.remote(num_cpus=1)(_run_job_remote)
        pending = [remote_job.remote(job.model_dump()) for job in jobs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield EvalAttempt.model_validate(ray.get(done[0]))
    except ray.exceptions.RayError as exc:
        raise RayBackendError(f"Ray failed under the run: {_first_line(exc)}") from None
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


def connect(ray: Any, address: str | None, parallelism: int) -> str:
    """Join a cluster as Ray users expect; returns which way it connected.

    ``address`` if given, else ``RAY_ADDRESS``, else a cluster already running on this
    machine (``ray start --head``), else a new local Ray with ``parallelism`` CPUs. Only the
    last one is sized by us: Ray refuses ``num_cpus`` when joining an existing cluster.
    """
    options: dict[str, Any] = {"log_to_driver": False}
    target = address or os.environ.get("RAY_ADDRESS")
    try:
        if target:
            ray.init(address=target, **options)
            return f"address {target}"
        try:
            ray.init(address="auto", **options)
            return "the running local cluster"
        except ConnectionError:  # no cluster here: start one of our own
            ray.init(num_cpus=parallelism, include_dashboard=False, **options)
            return f"a new local Ray with {parallelism} CPUs"
    except (ConnectionError, ValueError, RuntimeError, TimeoutError) as exc:
        where = target or "this machine"
        raise RayBackendError(
            f"cannot start or join Ray at {where}: {_first_line(exc)} "
            "(check --address / RAY_ADDRESS, or `ray status`)"
        ) from None


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _run_job_remote(job: dict) -> dict:
    """One job in a Ray worker process, which keeps its Worker (and browser) for the next.

    Ray tasks have no per-process initializer (its job-level setup hook is experimental and
    cannot be set on a Ray the caller started), so a process's first job starts its Worker.
    """
    worker = current_worker() or start_worker()
    return worker.run(EpisodeJob.model_validate(job)).model_dump()
