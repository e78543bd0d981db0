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
from webharness.runner.worker import current_worker, start_worker, stop_worker


class RayBackendError(WebHarnessError, RuntimeError):
    """Ray could not be reached or failed under the run; the message is one line."""


def ray_results(
    jobs: list[EpisodeJob],
    address: str | None,
    parallelism: int,
    serial: list[EpisodeJob] | None = None,
) -> Iterator[EvalAttempt]:
    """Submit every job and yield results as they finish; then play ``serial`` one at a
    time, on one Ray actor (one process: one app instance at a time, stopped at its end).

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
    lane: Any = None
    try:
        remote_job = ray.remote(num_cpus=1)(_run_job_remote)
        pending = [remote_job.remote(job.model_dump()) for job in jobs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield EvalAttempt.model_validate(ray.get(done[0]))
        if serial:
            lane = ray.remote(num_cpus=1)(SerialLane).remote()
            for job in serial:
                yield EvalAttempt.model_validate(ray.get(lane.run.remote(job.model_dump())))
    except ray.exceptions.RayError as exc:
        raise RayBackendError(f"Ray failed under the run: {_first_line(exc)}") from None
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if lane is not None:
            _close_lane(ray, lane)
        if started_here:
            ray.shutdown()


class SerialLane:
    """A Ray actor playing jobs one after another in its own process, on its Worker."""

    def run(self, job: dict) -> dict:
        return _run_job_remote(job)

    def close(self) -> None:
        """Close its Worker: its envs, their app instances and its browser."""
        stop_worker()


def _close_lane(ray: Any, lane: Any) -> None:
    try:
        ray.get(lane.close.remote(), timeout=60)
    except Exception:  # noqa: BLE001 (a lane that died has nothing left to close)
        pass
    ray.kill(lane)


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
    worker = current_worker()
    if worker is None:
        worker = start_worker()
        _stop_worker_on_sigterm()
    return worker.run(EpisodeJob.model_validate(job)).model_dump()


def _stop_worker_on_sigterm() -> None:
    """A Ray worker process is ended with SIGTERM (``ray.shutdown``, a cancelled task): close
    its Worker first, so the apps its envs started stop with it."""
    import signal

    def leave(*_: Any) -> None:
        stop_worker()
        os._exit(1)

    try:
        signal.signal(signal.SIGTERM, leave)
    except ValueError:  # not the process's main thread: Ray's own handling stays
        pass
