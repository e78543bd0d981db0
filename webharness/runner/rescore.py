"""From a run folder to its report, and re-scoring saved traces offline (no browser).

Each function takes the run folder as a path or a ``RunFolder``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webharness.diagnosis.scoring import EpisodeScore, attempt_record, score_trace
from webharness.reporting.records import EvalAttempt
from webharness.reporting.summary import summarize
from webharness.reporting.timelines import EpisodeView, StepView
from webharness.runner.run_folder import RunFolder
from webharness.trace.io import TraceError, load_trace
from webharness.trace.models import EpisodeTrace, StepRecord


def rescore(
    run_dir: Path | RunFolder, attempt: EvalAttempt
) -> tuple[EpisodeTrace, EpisodeScore, EvalAttempt] | None:
    """Score one saved episode again from its trace; None when it has no readable trace."""
    if attempt.trace_dir is None or attempt.not_executable:
        return None
    folder = RunFolder(run_dir)
    try:
        trace = load_trace(folder.episode_dir(attempt.trace_dir))
    except TraceError:
        return None
    goldens = folder.load_goldens(attempt.scenario_id, attempt.seed or 0)
    score = score_trace(trace, goldens)
    again = attempt_record(
        trace,
        score,
        runner=attempt.runner,
        model=attempt.model,
        trial=attempt.trial,
        perturbations=attempt.perturbations,
        duration_ms=attempt.duration_ms,
        prompt_tokens=attempt.prompt_tokens,
        completion_tokens=attempt.completion_tokens,
        trace_dir=attempt.trace_dir,
    ).model_copy(update={"retries": attempt.retries})  # what scoring does not read
    return trace, score, again


def score_run(run_dir: Path | RunFolder) -> list[EvalAttempt]:
    """Every attempt of the run re-scored from its saved trace (harness faults kept as they are)."""
    rescored = []
    for attempt in RunFolder(run_dir).read_attempts():
        result = rescore(run_dir, attempt)
        rescored.append(result[2] if result else attempt)
    return rescored


def episode_view(run_dir: Path | RunFolder, attempt: EvalAttempt) -> EpisodeView | None:
    """The timeline of one episode: agent screenshots beside the matched golden steps."""
    result = rescore(run_dir, attempt)
    if result is None:
        return None
    trace, score, _ = result
    folder = RunFolder(run_dir)
    agent_dir = folder.episode_dir(attempt.trace_dir or "")
    agent_steps = [
        _step_view(agent_dir, s.index, s.action, s.screenshot, _note(s)).model_copy(
            update=_pointer_marker(s)
        )
        for s in trace.steps
    ]
    golden_steps: list[StepView] = []
    matched: list[tuple[int, int]] = []
    alignment = score.alignment
    if alignment is not None:
        task, seed = attempt.scenario_id, attempt.seed or 0
        golden = next(
            (g for g in folder.load_goldens(task, seed) if g.golden_path == alignment.golden_path),
            None,
        )
        if golden is not None:
            golden_dir = folder.golden_dir(task, seed)
            golden_steps = [
                _step_view(
                    golden_dir / (golden.golden_path or ""), s.index, s.action, s.screenshot, ""
                )
                for s in golden.steps
            ]
        matched = [(p.agent_step, p.golden_step) for p in alignment.matched]
    failure = score.failure
    evidence = {
        "code": failure.code.value if failure.code else None,
        "stage": failure.stage.value if failure.stage else None,
        "step": failure.step,
        "message": failure.message,
        **failure.evidence,
    }
    return EpisodeView(
        attempt=attempt,
        agent_steps=agent_steps,
        golden_steps=golden_steps,
        matched=matched,
        divergence_step=alignment.first_divergence_step if alignment else None,
        evidence=evidence,
    )


def report_run(run_dir: Path | RunFolder, max_episodes: int = 60) -> dict[str, Path]:
    """Write summary.json, report.md and report.html for a run folder.

    Args:
        run_dir: the run folder.
        max_episodes: how many episode timelines the HTML shows, failures first.

    Returns:
        ``{"json": ..., "markdown": ..., "html": ...}`` paths of the written files.
    """
    folder = RunFolder(run_dir)
    attempts = folder.read_attempts()
    ordered = sorted(attempts, key=lambda a: (a.passed, a.not_executable))  # failures first
    views = {}
    for attempt in ordered[:max_episodes]:
        view = episode_view(run_dir, attempt)
        if view is not None:
            views[attempt.key()] = view
    summary = summarize(attempts, folder.price_table(), folder.splits())
    return folder.write_report(attempts, summary, views, max_episodes)


def _step_view(
    folder: Path, index: int, action: str | None, screenshot: str | None, note: str
) -> StepView:
    return StepView(
        index=index,
        action=action,
        screenshot=folder / screenshot if screenshot else None,
        note=note,
    )


def _pointer_marker(step: StepRecord) -> dict[str, Any]:
    """Where a pointer action acted and what it hit, for the marker on its screenshot."""
    hit = step.action_result.pointer if step.action_result else None
    if hit is None or not hit.in_viewport:
        return {}
    what = f"{hit.role} {hit.name!r}" if hit.role else "no element"
    covered = f", covered by {hit.covered_by}" if hit.covered_by else ""
    return {
        "pointer": (hit.x, hit.y),
        "pointer_hit": f"pointer at ({hit.x:g}, {hit.y:g}): {what}{covered}",
    }


def _note(step: StepRecord) -> str:
    """What went wrong with the step's action, for the timeline (nothing when it worked)."""
    result = step.action_result
    if result is None or result.ok:
        return ""
    return f"{result.error.value}: {result.message}"[:200] if result.error else result.message[:200]
