"""Run reports: ``summary.json``, ``report.md`` and one self-contained ``report.html``.

The HTML page opens offline from disk: CSS inline, charts as inline SVG, screenshots as
base64 thumbnails, no JavaScript (collapsing uses ``<details>``). Episode timelines show
each agent step beside the golden step it was aligned to, the first divergence marked.

Example:
    >>> from pathlib import Path; import tempfile
    >>> from webharness.reporting.records import EvalAttempt
    >>> runs = [EvalAttempt(scenario_id="WebEval/form-v0", category="form", runner="a",
    ...                     seed=1, passed=True, steps=4)]
    >>> paths = write_report(Path(tempfile.mkdtemp()), runs)
    >>> sorted(paths)
    ['html', 'json', 'markdown']
"""

from __future__ import annotations

import base64
import functools
import io
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from PIL import Image
from pydantic import BaseModel, ConfigDict, Field, model_validator

from webharness.reporting import formats as fmt
from webharness.reporting.costs import episode_cost
from webharness.reporting.formats import format_summary_table  # noqa: F401 (read here by the CLI)
from webharness.reporting.records import AttemptKey, EvalAttempt
from webharness.reporting.summary import Summary, summarize

MAX_EPISODES = 60  # timelines in one page: beyond this the file gets unwieldy
MAX_TIMELINE_STEPS = 30  # rows per timeline; longer episodes keep a window round the divergence
THUMB_WIDTH = 320  # px; JPEG thumbnails keep a 60-episode page to a few MB


class StepView(BaseModel):
    """One step of a timeline. Accepts a tuple ``(index, action, screenshot, note)``."""

    model_config = ConfigDict(extra="forbid")

    index: int
    action: str | None = None
    screenshot: Path | None = None  # absolute, or relative to the run folder
    note: str = ""

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


def write_report(
    run_dir: Path,
    attempts: list[EvalAttempt],
    summary: Summary | None = None,
    episodes: dict[AttemptKey, EpisodeView] | None = None,
    *,
    max_episodes: int = MAX_EPISODES,
) -> dict[str, Path]:
    """Write ``summary.json``, ``report.md`` and ``report.html`` into ``run_dir``.

    Args:
        run_dir: the run folder; relative screenshot paths resolve against it.
        attempts: every episode of the run.
        summary: ``summarize(attempts)``, computed here when not given.
        episodes: timelines to show, keyed by ``EvalAttempt.key()``; failed ones come
            first and at most ``max_episodes`` are rendered.

    Returns:
        ``{"json": ..., "markdown": ..., "html": ...}`` paths of the written files.
    """
    summary = summary if summary is not None else summarize(attempts)
    run_dir.mkdir(parents=True, exist_ok=True)
    context = _context(run_dir, attempts, summary)
    paths = {
        "json": run_dir / "summary.json",
        "markdown": run_dir / "report.md",
        "html": run_dir / "report.html",
    }
    _write_atomic(paths["json"], summary.model_dump_json(indent=2) + "\n")
    _write_atomic(paths["markdown"], _render("report.md.j2", autoescape=False, **context))
    _write_atomic(paths["html"], _html(run_dir, attempts, summary, episodes or {}, max_episodes))
    return paths


def _html(
    run_dir: Path,
    attempts: list[EvalAttempt],
    summary: Summary,
    episodes: dict[AttemptKey, EpisodeView],
    max_episodes: int,
) -> str:
    from webharness.reporting.charts import render_charts  # matplotlib loads only to report

    charts = render_charts(attempts, summary)
    return _render(
        "report.html.j2",
        autoescape=True,
        charts={title: Markup(svg) for title, svg in charts.items()},  # our own SVG
        episodes=_timelines(run_dir, episodes, max_episodes),
        episodes_total=len(episodes),
        **_context(run_dir, attempts, summary),
    )


def _context(run_dir: Path, attempts: list[EvalAttempt], summary: Summary) -> dict[str, Any]:
    def cost(attempt: EvalAttempt) -> float | None:
        return episode_cost(attempt, summary.prices)

    runners = list(summary.runners)
    categories = sorted({c for g in summary.runners.values() for c in g.by_category})
    return {
        "title": run_dir.resolve().name,
        "summary": summary,
        "rows": fmt.summary_rows(summary),
        "runners": runners,
        "categories": categories,
        "codes": list(summary.overall.failure_codes),
        "has_pass_k": any(g.pass_k for g in summary.runners.values()),
        "has_gaps": any(g.perturbation_gaps for g in summary.runners.values()),
        "models": sorted({a.model for a in attempts if a.model}),
        "has_usage": summary.overall.usage.tokens > 0,
        "tasks": list(summary.overall.usage_by_task),
        "prices": _prices_used(summary),
        "episode_cost": lambda a: fmt.cost_text(a.prompt_tokens + a.completion_tokens, cost(a)),
    }


def _prices_used(summary: Summary) -> list[str]:
    """The prices that apply to this run's episodes, as ``name: prompt / completion``."""
    table = summary.prices
    return [
        f"{name}: ${price.prompt:g} / ${price.completion:g}"
        for name, price in {**table.models, **table.agents}.items()
    ]


# --- timelines ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Cell:
    index: int
    action: str | None
    image: str | None  # data URI
    note: str


@dataclass
class _Row:
    agent: _Cell | None = None
    golden: _Cell | None = None
    golden_label: str = ""
    divergent: bool = False
    failure: bool = False
    omitted: int = 0  # > 0: a placeholder row for this many hidden steps


@dataclass
class _Timeline:
    attempt: EvalAttempt
    status: str  # "pass", "fail", "nx"
    divergence: int | None
    evidence: dict[str, str]
    rows: list[_Row] = field(default_factory=list)
    unmatched_golden: list[int] = field(default_factory=list)


def _timelines(run_dir: Path, episodes: dict[AttemptKey, EpisodeView], cap: int) -> list[_Timeline]:
    ordered = sorted(episodes.values(), key=lambda v: (_status_rank(v.attempt), v.attempt.key()))
    return [_timeline(run_dir, view) for view in ordered[:cap]]


def _status_rank(a: EvalAttempt) -> int:
    """Failures first (what a reader opens the report for), harness faults, then passes."""
    return 2 if a.passed and not a.not_executable else 1 if a.not_executable else 0


def _timeline(run_dir: Path, view: EpisodeView) -> _Timeline:
    a = view.attempt
    divergence = view.divergence_step
    if divergence is None:
        divergence = a.first_divergence_step
    golden = {s.index: s for s in view.golden_steps}
    matches: dict[int, list[int]] = {}
    for agent_index, golden_index in view.matched:
        matches.setdefault(agent_index, []).append(golden_index)
    focus = next((s for s in (divergence, a.failure_step) if s is not None), None)
    timeline = _Timeline(
        attempt=a,
        status="nx" if a.not_executable else "pass" if a.passed else "fail",
        divergence=divergence,
        evidence=_evidence(view),
        unmatched_golden=sorted(golden.keys() - {g for _, g in view.matched}),
    )
    previous = None
    for position in _visible(view.agent_steps, focus):
        if previous is not None and position > previous + 1:
            timeline.rows.append(_Row(omitted=position - previous - 1))
        previous = position
        step = view.agent_steps[position]
        matched = sorted(matches.get(step.index, []))
        shown = golden.get(matched[-1]) if matched else None  # the furthest state reached
        timeline.rows.append(
            _Row(
                agent=_cell(run_dir, step),
                golden=_cell(run_dir, shown) if shown else None,
                golden_label=_range_label(matched),
                divergent=step.index == divergence,
                failure=step.index == a.failure_step,
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


def _evidence(view: EpisodeView) -> dict[str, str]:
    a = view.attempt
    base: dict[str, Any] = {
        "code": a.failure_code,
        "stage": a.root_cause,
        "step": a.failure_step,
        "message": a.failure_message,
        "error": a.error,
        "false success": a.false_success or None,
        "progress": None if a.progress_rate is None else f"{a.progress_rate:.0%}",
        "fidelity": None if a.fidelity is None else f"{a.fidelity:.2f}",
    }
    base.update(view.evidence)
    return {k: str(v) for k, v in base.items() if v not in (None, "")}


def _cell(run_dir: Path, step: StepView) -> _Cell:
    image = None
    if step.screenshot is not None:
        path = step.screenshot if step.screenshot.is_absolute() else run_dir / step.screenshot
        image = _thumbnail(str(path), THUMB_WIDTH)
    return _Cell(index=step.index, action=step.action, image=image, note=step.note)


@functools.lru_cache(maxsize=512)  # golden screenshots recur across episodes
def _thumbnail(path: str, width: int) -> str | None:
    """A downscaled JPEG of the screenshot as a data URI; None if it cannot be read."""
    try:
        with Image.open(path) as image:
            image = image.convert("RGB")
            image.thumbnail((width, width * 4))
            buffer = io.BytesIO()
            image.save(buffer, format="JPEG", quality=80, optimize=True)
    except OSError:  # missing or unreadable file: the timeline shows a placeholder
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


# --- rendering ------------------------------------------------------------------------


def _render(template: str, *, autoescape: bool, **context: Any) -> str:
    return _environment(autoescape).get_template(template).render(**context)


@functools.cache
def _environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_load_template),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,  # a typo in a template fails loudly in tests
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(pct=fmt.pct, pp=fmt.pp, ci=fmt.ci, num=fmt.num, ms=fmt.ms, md=fmt.md_cell)
    env.filters.update(tokens=fmt.tokens, cost=fmt.cost, cost_per_episode=fmt.cost_per_episode)
    return env


def _load_template(name: str) -> str:
    folder = resources.files("webharness.reporting").joinpath("templates")
    return folder.joinpath(name).read_text(encoding="utf-8")


def _write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename, so a reader never sees half a report."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
