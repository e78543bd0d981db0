"""Scoring a recorded episode offline.

Alignment to golden traces, failure diagnosis, and the flat ``EvalAttempt`` record. The
live runner and ``webharness score`` share it.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from webharness.diagnosis.alignment import Alignment, align
from webharness.diagnosis.app_origin import on_placeholder, traces_on_placeholder
from webharness.diagnosis.failures import FailureReport, annotate
from webharness.errors import UnknownTaskError
from webharness.reporting.records import EvalAttempt
from webharness.spec.catalogue import get_task
from webharness.spec.task_spec import TaskSpec
from webharness.spec.templating import fill
from webharness.trace.models import EpisodeTrace
from webharness.trace.rules import RuleReport, evaluate_rules, load_rules


class EpisodeScore(BaseModel):
    """An episode's diagnosis: alignment, failure report and trace rules' verdicts.

    The alignment is None when the task has no golden traces.
    """

    model_config = ConfigDict(extra="forbid")

    alignment: Alignment | None
    failure: FailureReport
    rules: RuleReport | None = None  # the task's trace rules, per phase, when it has any


def score_trace(
    trace: EpisodeTrace,
    goldens: Sequence[EpisodeTrace],
    feasible: bool = True,
    spec: TaskSpec | None = None,
    id_patterns: Sequence[str] | None = None,
) -> EpisodeScore:
    """Align the trace with the task's golden traces, annotate it, check its trace rules.

    Alignment needs golden traces; it reads each trace's own app instance as the
    placeholder origin (``app_origin``), so traces recorded on different instances of a
    task's app compare as one app, while the annotation keeps the real URLs. The task is
    ``spec`` when given (the env's own), else the catalogue's spec of the trace's env id
    (none when it has no such task): its trace rules are checked, and its
    ``generated_ids`` are the patterns of ids its app generates (``align``) unless
    ``id_patterns`` names them.
    """
    spec = spec if spec is not None else _catalogue_spec(trace)
    if id_patterns is None:
        id_patterns = spec.generated_ids if spec is not None else ()
    alignment = (
        align(on_placeholder(trace), traces_on_placeholder(list(goldens)), id_patterns=id_patterns)
        if goldens and trace.steps
        else None
    )
    return EpisodeScore(
        alignment=alignment,
        failure=annotate(trace, alignment, feasible=feasible),
        rules=_task_rules(trace, spec),
    )


def _catalogue_spec(trace: EpisodeTrace) -> TaskSpec | None:
    try:
        return get_task(trace.task.env_id)
    except UnknownTaskError:
        return None  # a spec that is not registered, or a hand-made trace


def _task_rules(trace: EpisodeTrace, spec: TaskSpec | None) -> RuleReport | None:
    if spec is None:
        return None  # no task: no rules
    rules = load_rules(fill(spec.trace_rules, trace.task.params))
    return evaluate_rules(trace, rules) if rules else None


def attempt_record(
    trace: EpisodeTrace,
    score: EpisodeScore,
    *,
    runner: str,
    model: str | None = None,
    trial: int = 0,
    perturbations: str = "",
    duration_ms: float = 0.0,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    trace_dir: str | None = None,
    error: str | None = None,
) -> EvalAttempt:
    """The flat record of one scored episode."""
    failure, alignment = score.failure, score.alignment
    end = trace.end
    return EvalAttempt(
        scenario_id=trace.task.env_id,
        category=trace.task.category,
        runner=runner,
        model=model,
        seed=trace.task.seed,
        trial=trial,
        perturbations=perturbations,
        passed=bool(end and end.success) and not failure.not_executable,
        false_success=failure.false_success,
        false_give_up=failure.false_give_up,
        not_executable=failure.not_executable,
        duration_ms=round(duration_ms, 1),
        steps=max(0, len(trace.steps) - 1),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        ended_by=end.ended_by.value if end and end.ended_by else None,
        failure_code=failure.code.value if failure.code else None,
        failure_message=failure.message,
        root_cause=failure.stage.value if failure.stage else None,
        failure_step=failure.step,
        failure_runner_up=failure.runner_up.value if failure.runner_up else None,
        failure_decided_by=failure.decided_by.value if failure.decided_by else None,
        first_divergence_step=alignment.first_divergence_step if alignment else None,
        decisive_step=failure.decisive_step if not failure.passed else None,
        progress_rate=alignment.progress_rate if alignment else None,
        fidelity=alignment.fidelity if alignment else None,
        trace_dir=trace_dir,
        error=error or (end.error if end else None),
        criteria_error=end.criteria_error if end else None,
    )
