"""Episode timelines for the HTML report: each agent step beside the golden step it was
aligned to, the first divergence, the failure step and the decisive step marked, and the
failure's evidence as the page shows it.

``EpisodeView`` is what the runner hands the report about one episode; ``timelines``
turns views into the rows the template prints, adding their screenshots to the page's
``ScreenshotSheet``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from webharness.reporting import formats as fmt
from webharness.reporting.records import AttemptKey, EvalAttempt
from webharness.reporting.screenshots import ScreenshotSheet, Shot

MAX_TIMELINE_STEPS = 30  # rows per timeline; longer episodes keep a window round the divergence
# The rule's evidence names some facts the attempt gives already; shown once, by these names.
_SAME_AS = {"progress_rate": "progress", "first_divergence_step": "first divergence"}


class StepView(BaseModel):
    """One step of a timeline. Accepts a tuple ``(index, action, screenshot, note)``."""

    model_config = ConfigDict(extra="forbid")

    index: int
    action: str | None = None
    screenshot: Path | None = None  # absolute, or relative to the run folder
    note: str = ""
    # a pointer action's point (viewport CSS px, ActionResult.pointer) and what it hit,
    # marked on the step's screenshot
    pointer: tuple[float, float] | None = None
    pointer_hit: str = ""

    @model_validator(mode="before")
    @classmethod
    def _from_tuple(cls, data: Any) -> Any:
        if isinstance(data, (tuple, list)):
            names = ("index", "action", "screenshot", "note")
            return {k: v for k, v in zip(names, data) if v is not None}
        return data


class EpisodeView(BaseModel):
    """What the runner hands the report about one episode, beyond its ``EvalAttempt``."""

    model_config = ConfigDict(extra="forbid")

    attempt: EvalAttempt
    agent_steps: list[StepView] = Field(default_factory=list)
    golden_steps: list[StepView] = Field(default_factory=list)
    matched: list[tuple[int, int]] = Field(default_factory=list)  # (agent, golden) indices
    divergence_step: int | None = None  # agent step index; falls back to the attempt's
    evidence: dict[str, Any] = Field(default_factory=dict)  # code, stage, message, ...


@dataclass(frozen=True)
class Cell:
    index: int
    action: str | None
    shot: Shot | None  # None: no screenshot, or it cannot be read
    note: str
    pointer: tuple[float, float] | None = None  # % of the screenshot's width and height
    pointer_hit: str = ""


@dataclass
class Row:
    agent: Cell | None = None
    golden: Cell | None = None
    golden_label: str = ""
    divergent: bool = False
    failure: bool = False
    decisive: bool = False
    omitted: int = 0  # > 0: a placeholder row for this many hidden steps


@dataclass
class Timeline:
    attempt: EvalAttempt
    status: str  # "pass", "fail", "nx"
    divergence: int | None
    evidence: dict[str, str]
    rows: list[Row] = field(default_factory=list)
    unmatched_golden: list[int] = field(default_factory=list)


def timelines(
    run_dir: Path, episodes: dict[AttemptKey, EpisodeView], cap: int, sheet: ScreenshotSheet
) -> list[Timeline]:
    """The first ``cap`` episodes' timelines, failures first (what a reader opens it for)."""
    ordered = sorted(episodes.values(), key=lambda v: (_status_rank(v.attempt), v.attempt.key()))
    return [_timeline(run_dir, view, sheet) for view in ordered[:cap]]


def _status_rank(a: EvalAttempt) -> int:
    """Failures first, harness faults, then passes."""
    return 2 if a.passed and not a.not_executable else 1 if a.not_executable else 0


def _timeline(run_dir: Path, view: EpisodeView, sheet: ScreenshotSheet) -> Timeline:
    a = view.attempt
    divergence = view.divergence_step
    if divergence is None:
        divergence = a.first_divergence_step
    golden = {s.index: s for s in view.golden_steps}
    matches: dict[int, list[int]] = {}
    for agent_index, golden_index in view.matched:
        matches.setdefault(agent_index, []).append(golden_index)
    focus = next((s for s in (divergence, a.failure_step) if s is not None), None)
    timeline = Timeline(
        attempt=a,
        status="nx" if a.not_executable else "pass" if a.passed else "fail",
        divergence=divergence,
        evidence=evidence(view),
        unmatched_golden=sorted(golden.keys() - {g for _, g in view.matched}),
    )
    previous = None
    for position in _visible(view.agent_steps, focus):
        if previous is not None and position > previous + 1:
            timeline.rows.append(Row(omitted=position - previous - 1))
        previous = position
        step = view.agent_steps[position]
        matched = sorted(matches.get(step.index, []))
        shown = golden.get(matched[-1]) if matched else None  # the furthest state reached
        timeline.rows.append(
            Row(
                agent=_cell(run_dir, step, sheet),
                golden=_cell(run_dir, shown, sheet) if shown else None,
                golden_label=_range_label(matched),
                divergent=step.index == divergence,
                failure=step.index == a.failure_step,
                decisive=step.index == a.decisive_step,
            )
        )
    return timeline


def _visible(steps: list[StepView], focus: int | None) -> list[int]:
    """Positions of the steps to show: all, or the ends plus a window round ``focus``."""
    count = len(steps)
    if count <= MAX_TIMELINE_STEPS:
        return list(range(count))
    indices = [s.index for s in steps]
    centre = indices.index(focus) if focus in indices else count - 1
    span = MAX_TIMELINE_STEPS - 6  # three steps kept at each end
    start = min(max(0, centre - span // 2), count - span)
    return sorted({0, 1, 2, *range(start, start + span), count - 3, count - 2, count - 1})


def _range_label(indices: list[int]) -> str:
    if not indices:
        return "no golden match"
    if len(indices) == 1:
        return f"golden #{indices[0]}"
    return f"golden #{indices[0]}–{indices[-1]}"


def evidence(view: EpisodeView) -> dict[str, str]:
    """What the episode's diagnosis says, by label, each value written as the report
    writes it: the attempt's record first (code, runner-up, deciding rule, stage, steps),
    then what the rule saw; the re-scored evidence wins where both name a fact."""
    a = view.attempt
    shown: dict[str, Any] = {
        "code": a.failure_code,
        "runner-up": a.failure_runner_up,
        "decided by": a.failure_decided_by,
        "stage": a.root_cause,
        "step": a.failure_step,
        "decisive step": a.decisive_step,
        "first divergence": a.first_divergence_step,
        "message": a.failure_message,
        "error": a.error,
        "false success": a.false_success or None,
        "progress": a.progress_rate,
        "fidelity": a.fidelity,
    }
    for key, value in view.evidence.items():
        shown[_SAME_AS.get(key, key.replace("_", " "))] = value
    return {k: fmt.evidence_value(k, v) for k, v in shown.items() if v not in (None, "")}


def _cell(run_dir: Path, step: StepView, sheet: ScreenshotSheet) -> Cell:
    shot = None
    if step.screenshot is not None:
        path = step.screenshot if step.screenshot.is_absolute() else run_dir / step.screenshot
        shot = sheet.add(path)
    pointer = None
    if shot is not None and step.pointer is not None:  # the screenshot is the viewport's
        x, y = step.pointer
        pointer = (round(100 * x / shot.width, 2), round(100 * y / shot.height, 2))
    return Cell(step.index, step.action, shot, step.note, pointer, step.pointer_hit)
