"""Running episode jobs as Ray tasks, so a large evaluation can spread over a cluster.

Ray is an optional extra (``pip install webharness[ray]``), imported only here.
"""

from __future__ import annotations

from collections.abc import Iterator

from webharness.errors import WebHarnessError
from webharness.reporting.records import EvalAttempt
from webharness.runner.config import EpisodeJob
from webharness.runner.worker import current_worker, start_worker


def ray_results(
    jobs: list[EpisodeJob], address: str | None, parallelism: int
) -> Iterator[EvalAttempt]:
    """Submit every job and yield results as they finish.

    Without an address a local Ray instance is started with ``parallelism`` CPUs.
    """
    try:
        import ray
    except ImportError:
        raise WebHarnessError("the Ray backend needs Ray: pip install 'webharness[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=parallelism, include_dashboard=False, log_to_driver=False)
    remote_job = ray.remote(num_cpus=1)(_run_job_remote)
    pending = [remote_job.remote(job.model_dump()) for job in jobs]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield EvalAttempt.model_validate(ray.get(done[0]))
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


def _run_job_remote(job: dict) -> dict:
    """One job in a Ray worker process, which keeps its Worker (and browser) for the next.

    Ray tasks have no per-process initializer (its job-level setup hook is experimental and
    cannot be set on a Ray the caller started), so a process's first job starts its Worker.
    """
    worker = current_worker() or start_worker()
    return worker.run(EpisodeJob.model_validate(job)).model_dump()
