"""Running a run's jobs: in this process, in local worker processes, or on Ray.

Every finished episode is appended to ``results.jsonl`` at once, so an interrupted run
loses only the episodes in flight and ``resume=True`` skips what is done.
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from webharness.errors import RunError
from webharness.reporting.records import EvalAttempt
from webharness.runner.config import RunConfig
from webharness.runner.jobs import EpisodeJob, expand_jobs
from webharness.runner.lanes import serial_notice, split_lanes
from webharness.runner.run_folder import RunFolder
from webharness.runner.worker import Worker, run_job, start_worker, stop_worker

_RESULTS = RunFolder.RESULTS
_IN_TRANSIT_S = 5.0  # how long the results a finished chunk sent may take to arrive
_POLL_S = 0.25  # how often the pool looks for a failed chunk while it waits for results
_log = logging.getLogger("webharness.runner.pool")


def prepare_run(config: RunConfig, run_dir: Path, resume: bool) -> list[EpisodeJob]:
    """Check the run folder, write the manifest, and list the jobs still to do.

    Raises:
        RunError: the folder holds results and ``resume`` is false, or it cannot be written.
    """
    folder = RunFolder(run_dir)
    if folder.results.exists() and not resume:
        raise RunError(
            f"{run_dir} already holds results ({_RESULTS}); pass --resume to continue that run "
            f"or choose another --out folder"
        )
    jobs = expand_jobs(config, run_dir)
    folder.prepare(config, len(jobs))
    done = folder.done_keys()
    return [j for j in jobs if j.key() not in done]


def run_jobs(
    jobs: list[EpisodeJob],
    config: RunConfig,
    run_dir: Path,
    on_result: Callable[[EvalAttempt], None] | None = None,
) -> list[EvalAttempt]:
    """Run the jobs on the configured backend, appending each result as it arrives.

    Args:
        jobs: what ``prepare_run`` left to do.
        config: the run's config (backend, workers).
        run_dir: the run folder.
        on_result: called with each attempt once it is saved (a progress bar).

    Returns:
        The attempts of this call, in the order they finished.

    Raises:
        RunError: the run stopped (a full disk, a dead worker); finished episodes are kept.
        AgentUnavailableError: the agent's model cannot be reached.
    """
    folder = RunFolder(run_dir)
    finished: list[EvalAttempt] = []
    for attempt in _backend_results(jobs, config):
        folder.append(attempt)
        finished.append(attempt)
        if on_result is not None:
            on_result(attempt)
    return finished


def _backend_results(jobs: list[EpisodeJob], config: RunConfig) -> Iterator[EvalAttempt]:
    """The jobs' attempts as they finish; with more than one worker, the jobs of a task
    that would share its server's state run one at a time after the rest (``lanes``)."""
    if not jobs:
        return iter(())
    parallel, serial = split_lanes(jobs) if config.workers > 1 else (jobs, [])
    if serial:
        _log.warning(serial_notice(serial))
    if config.backend == "ray":
        from webharness.runner.ray_backend import ray_results

        return ray_results(parallel, config.ray_address, config.workers, serial=serial)
    if config.workers == 1:
        return _in_process(jobs)
    return itertools.chain(_process_pool(parallel, config.workers), _in_process(serial))


def _in_process(jobs: list[EpisodeJob]) -> Iterator[EvalAttempt]:
    if not jobs:
        return
    with Worker() as worker:
        for job in jobs:
            yield worker.run(job)


def job_chunks(jobs: list[EpisodeJob], workers: int) -> list[list[EpisodeJob]]:
    """The jobs split by env (task, observation mode, perturbation stack), in chunks of at
    most a share of the run so every worker gets work; largest chunks first."""
    by_env: dict[tuple[str, str, str], list[EpisodeJob]] = {}
    for job in jobs:
        by_env.setdefault((job.env_id, job.obs_mode, job.perturbations), []).append(job)
    size = max(1, -(-len(jobs) // (2 * workers)))  # ceil: two chunks per worker at least
    chunks = [group[i : i + size] for group in by_env.values() for i in range(0, len(group), size)]
    return sorted(chunks, key=len, reverse=True)  # stable: the run's order among equals


# --- the local process pool: the parent's side ----------------------------------------------
def _process_pool(jobs: list[EpisodeJob], workers: int) -> Iterator[EvalAttempt]:
    """Run the jobs in worker processes, a chunk of one env's jobs at a time.

    A worker plays a whole chunk, so it keeps one env (and its ready page) for it, and the
    workers play different tasks at once: one waiting on a slow page while another works
    uses the two cores better than both waiting on the same task (+15% episodes/min here).
    Each episode's result is sent back as soon as it ends, through ``finished``.
    """
    import concurrent.futures
    import multiprocessing
    import queue

    if not jobs:
        return
    # spawn, not fork: a forked child would inherit a parent's browser thread mid-flight.
    context = multiprocessing.get_context("spawn")
    finished = context.Queue()
    with concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_pool_worker, initargs=(finished,)
    ) as pool:
        futures = [pool.submit(_run_chunk, chunk) for chunk in job_chunks(jobs, workers)]
        received = 0
        try:
            while received < len(jobs):
                failure = _chunk_failure(futures)
                if failure is not None or all(f.done() for f in futures):
                    for attempt in _in_transit(finished):  # what the workers sent is kept
                        received += 1
                        yield attempt
                    if failure is not None:
                        raise failure
                    if received < len(jobs):
                        raise RunError(
                            f"stopped: the workers ended with {len(jobs) - received} of "
                            f"{len(jobs)} results not sent back; every result received is in "
                            f"{_RESULTS}. Run again with --resume to do the rest."
                        )
                    return
                try:
                    attempt = finished.get(timeout=_POLL_S)
                except queue.Empty:
                    continue
                received += 1
                yield attempt
        except BaseException:  # an error, Ctrl-C or SIGTERM: the workers go now, not later
            _stop_workers(pool)
            raise
        finally:
            for future in futures:
                future.cancel()


def _stop_workers(pool: Any) -> None:
    """End the pool's worker processes at once; each closes its browser on SIGTERM.

    ``ProcessPoolExecutor`` gains ``terminate_workers`` in Python 3.14; before it, its
    processes are only reachable through ``_processes``.
    """
    if hasattr(pool, "terminate_workers"):
        pool.terminate_workers()
        return
    for process in list(getattr(pool, "_processes", {}).values()):
        if process.is_alive():
            process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _chunk_failure(futures: list[Any]) -> BaseException | None:
    """What stopped a chunk, if one stopped: a storage error, a missing model, a dead worker."""
    import concurrent.futures

    for future in futures:
        if not future.done() or future.cancelled():
            continue
        error = future.exception()
        if isinstance(error, concurrent.futures.process.BrokenProcessPool):
            return RunError(
                f"stopped: a worker process died ({error}); its episode and the ones not yet "
                f"run are not in {_RESULTS}, every finished one is. Run again with --resume "
                f"to do the rest."
            )
        if error is not None:
            return error
    return None


def _in_transit(finished: Any) -> Iterator[EvalAttempt]:
    """The results already on their way: a worker's queue writes lag its chunk's end."""
    import queue

    deadline = time.monotonic() + _IN_TRANSIT_S
    while (left := deadline - time.monotonic()) > 0:
        try:
            yield finished.get(timeout=min(left, _POLL_S))
        except queue.Empty:
            return


# --- the local process pool: a worker process's side ----------------------------------------
_FINISHED: Any = None  # the queue a worker process sends its results on, set at its start


def _start_pool_worker(finished: Any) -> None:
    """The pool's initializer: each worker process starts its one Worker here."""
    global _FINISHED
    _FINISHED = finished
    # Ctrl-C reaches the whole process group: the parent decides, and ends the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_dies_with_parent()
    start_worker()


def _run_chunk(chunk: list[EpisodeJob]) -> int:
    for job in chunk:
        _FINISHED.put(run_job(job))
    return len(chunk)


def _worker_dies_with_parent() -> None:
    """A worker outlives a killed run otherwise (orphaned, still playing its episode).

    Linux sends the worker SIGTERM when its parent dies; the handler closes the worker's
    browser and leaves at once (a SystemExit would be caught by the pool's worker loop
    and sent back as the job's result).
    """
    import ctypes

    def leave(*_: Any) -> None:
        stop_worker()
        os._exit(1)

    signal.signal(signal.SIGTERM, leave)
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass  # not Linux: workers end when they next read from the closed queue
    if os.getppid() == 1:  # the parent died before the line above took effect
        os._exit(1)
