"""Run reports: ``summary.json``, ``report.md`` and one self-contained ``report.html``.

The HTML page opens offline from disk: CSS inline, charts as inline SVG, screenshots as
WebP data in the stylesheet, each picture once (``screenshots``), no JavaScript (collapsing
and enlarging use ``<details>``). Episode timelines (``timelines``) show each agent step
beside the golden step it was aligned to, the first divergence marked. Both pages list
every failed episode with its diagnosis and trace folder, and, for a run with splits,
success by split and the gaps between them.

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

import functools
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from webharness.reporting import formats as fmt
from webharness.reporting.costs import episode_cost
from webharness.reporting.formats import format_summary_table
from webharness.reporting.records import AttemptKey, EvalAttempt
from webharness.reporting.screenshots import ScreenshotSheet
from webharness.reporting.summary import Summary, summarize
from webharness.reporting.timelines import MAX_TIMELINE_STEPS, EpisodeView, StepView, timelines
from webharness.trace.atomic import write_atomic

__all__ = [
    "MAX_EPISODES",
    "MAX_TIMELINE_STEPS",
    "EpisodeView",
    "StepView",
    "format_summary_table",
    "write_report",
]

MAX_EPISODES = 60  # timelines in one page: beyond this the file gets unwieldy


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
    sheet = ScreenshotSheet()
    shown = timelines(run_dir, episodes, max_episodes, sheet)
    return _render(
        "report.html.j2",
        autoescape=True,
        charts={title: Markup(svg) for title, svg in charts.items()},  # our own SVG
        episodes=shown,
        episodes_total=len(episodes),
        screenshots_css=Markup(sheet.css()),  # our own rules: class names and base64
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
        # how episodes ended, shown once an external agent's process ended one
        "has_agent_endings": any(e.startswith("agent_") for e in summary.overall.endings),
        "has_pass_k": any(g.pass_k for g in summary.runners.values()),
        "has_gaps": any(g.perturbation_gaps for g in summary.runners.values()),
        "splits": summary.splits,
        "has_split_gaps": any(g.split_gaps for g in summary.runners.values()),
        "failed": _failed(attempts),
        "models": sorted({a.model for a in attempts if a.model}),
        "has_usage": summary.overall.usage.tokens > 0,
        "tasks": list(summary.overall.usage_by_task),
        "prices": _prices_used(summary),
        "episode_cost": lambda a: fmt.cost_text(a.prompt_tokens + a.completion_tokens, cost(a)),
    }


def _failed(attempts: list[EvalAttempt]) -> list[EvalAttempt]:
    """Every episode that did not pass (harness faults included), by runner, task, seed."""
    failed = [a for a in attempts if not a.passed or a.not_executable]
    return sorted(
        failed, key=lambda a: (a.runner, a.scenario_id, a.seed or 0, a.trial, a.perturbations)
    )


def _prices_used(summary: Summary) -> list[str]:
    """The prices that apply to this run's episodes, as ``name: prompt / completion``."""
    table = summary.prices
    return [
        f"{name}: ${price.prompt:g} / ${price.completion:g}"
        for name, price in {**table.models, **table.agents}.items()
    ]


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
    env.filters.update(gap=fmt.gap, dash=fmt.dash)
    env.filters.update(tokens=fmt.tokens, cost=fmt.cost, cost_per_episode=fmt.cost_per_episode)
    return env


def _load_template(name: str) -> str:
    folder = resources.files("webharness.reporting").joinpath("templates")
    return folder.joinpath(name).read_text(encoding="utf-8")


def _write_atomic(path: Path, text: str) -> None:
    """A reader never sees half a report."""
    write_atomic(path, text.encode("utf-8"))
