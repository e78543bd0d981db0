"""From a run folder to its report, and re-scoring saved traces offline (no browser)."""

from __future__ import annotations

from pathlib import Path

from webharness.diagnosis.scoring import EpisodeScore, attempt_record, score_trace
from webharness.reporting.records import EvalAttempt, read_attempts
from webharness.reporting.render import EpisodeView, StepView, write_report
from webharness.reporting.summary import summarize
from webharness.runner.pool import RESULTS, golden_dir, load_golden_folder
from webharness.trace.io import TraceError, load_trace
from webharness.trace.models import EpisodeTrace


def load_goldens(run_dir: Path, attempt: EvalAttempt) -> list[EpisodeTrace]:
    folder = run_dir / golden_dir(attempt.scenario_id, attempt.seed or 0)
    return load_golden_folder(folder) if folder.is_dir() else []


def rescore(
    run_dir: Path, attempt: EvalAttempt
) -> tuple[EpisodeTrace, EpisodeScore, EvalAttempt] | None:
    """Score one saved episode again from its trace; None when it has no readable trace."""
    if attempt.trace_dir is None or attempt.not_executable:
        return None
    try:
        trace = load_trace(run_dir / attempt.trace_dir)
    except TraceError:
        return None
    score = score_trace(trace, load_goldens(run_dir, attempt))
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
    )
    return trace, score, again


def score_run(run_dir: Path) -> list[EvalAttempt]:
    """Every attempt of the run re-scored from its saved trace (harness faults kept as they are)."""
    rescored = []
    for attempt in read_attempts(run_dir / RESULTS):
        result = rescore(run_dir, attempt)
        rescored.append(result[2] if result else attempt)
    return rescored


def episode_view(run_dir: Path, attempt: EvalAttempt) -> EpisodeView | None:
    """The timeline of one episode: agent screenshots beside the matched golden steps."""
    result = rescore(run_dir, attempt)
    if result is None:
        return None
    trace, score, _ = result
    agent_dir = run_dir / (attempt.trace_dir or "")
    agent_steps = [
        _step_view(agent_dir, s.index, s.action, s.screenshot, _note(s)) for s in trace.steps
    ]
    golden_steps: list[StepView] = []
    matched: list[tuple[int, int]] = []
    alignment = score.alignment
    if alignment is not None:
        golden = next(
            (g for g in load_goldens(run_dir, attempt) if g.golden_path == alignment.golden_path),
            None,
        )
        if golden is not None:
            golden_dir_path = (
                run_dir
                / golden_dir(attempt.scenario_id, attempt.seed or 0)
                / (golden.golden_path or "")
            )
            golden_steps = [
                _step_view(golden_dir_path, s.index, s.action, s.screenshot, "")
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


def report_run(run_dir: Path, max_episodes: int = 60) -> dict[str, Path]:
    """Write summary.json, report.md and report.html for a run folder."""
    attempts = read_attempts(run_dir / RESULTS)
    ordered = sorted(attempts, key=lambda a: (a.passed, a.not_executable))  # failures first
    views = {}
    for attempt in ordered[:max_episodes]:
        view = episode_view(run_dir, attempt)
        if view is not None:
            views[attempt.key()] = view
    return write_report(run_dir, attempts, summarize(attempts), views, max_episodes=max_episodes)


def _step_view(
    folder: Path, index: int, action: str | None, screenshot: str | None, note: str
) -> StepView:
    return StepView(
        index=index,
        action=action,
        screenshot=folder / screenshot if screenshot else None,
        note=note,
    )


def _note(step) -> str:  # type: ignore[no-untyped-def]
    result = step.action_result
    if result is None or result.ok:
        return ""
    return f"{result.error.value}: {result.message}"[:200] if result.error else result.message[:200]
