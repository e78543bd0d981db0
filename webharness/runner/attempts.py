"""The attempt a job records: a played episode's, scored, with what the agent spent and
the time each phase took; or, when the harness could not play it, a not-executable one."""

from __future__ import annotations

import time
from typing import Any

from webharness.diagnosis.scoring import EpisodeScore, attempt_record
from webharness.reporting.records import EvalAttempt
from webharness.runner.jobs import EpisodeJob
from webharness.trace.models import EpisodeTrace


def played_attempt(
    job: EpisodeJob,
    agent: Any,
    trace: EpisodeTrace,
    score: EpisodeScore,
    trace_dir: str,
    phases: dict[str, float],
) -> EvalAttempt:
    """The attempt of a played episode: its score, with what the agent spent and the
    time each phase took."""
    usage = getattr(agent, "usage", None)
    attempt = attempt_record(
        trace,
        score,
        runner=job.agent,
        model=getattr(agent, "model", None),
        trial=job.trial,
        perturbations=job.perturbations,
        duration_ms=phases["episode"],
        prompt_tokens=getattr(usage, "prompt_tokens", 0),
        completion_tokens=getattr(usage, "completion_tokens", 0),
        trace_dir=trace_dir,
    )
    retries = getattr(getattr(agent, "stats", None), "retries", None)
    rounded = {k: round(v, 1) for k, v in phases.items()}
    return attempt.model_copy(update={"retries": retries, "phases_ms": rounded})


def telling_steps(attempt: EvalAttempt) -> set[int]:
    """The steps whose frames tell what happened: the first and the last, and each of the
    failure, first divergence and decisive steps with the step before and after it."""
    marks = [attempt.failure_step, attempt.first_divergence_step, attempt.decisive_step]
    steps = {0, attempt.steps}
    for mark in marks:
        if mark is not None:
            steps |= {mark - 1, mark, mark + 1}
    return steps


def harness_fault(job: EpisodeJob, trace_dir: str, exc: Exception, started: float) -> EvalAttempt:
    """The attempt of an episode the harness could not play (not the agent's failure)."""
    import webharness

    return EvalAttempt(
        scenario_id=job.env_id,
        category=webharness.get_task(job.env_id).category,
        runner=job.agent,
        seed=job.seed,
        trial=job.trial,
        perturbations=job.perturbations,
        passed=False,
        not_executable=True,
        failure_code="runtime_error",
        root_cause="environment",
        error=_clipped(f"{type(exc).__name__}: {exc}"),
        duration_ms=round((time.perf_counter() - started) * 1000, 1),
        trace_dir=trace_dir,
    )


ERROR_CHARS = 1000  # of a harness fault's message, in its attempt


def _clipped(text: str) -> str:
    """``text`` within ``ERROR_CHARS``: its start (what failed) and its end (an app's last
    lines of output, which say why)."""
    if len(text) <= ERROR_CHARS:
        return text
    head = ERROR_CHARS // 3
    return f"{text[:head]} [...] {text[-(ERROR_CHARS - head - 7) :]}"
