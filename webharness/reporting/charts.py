"""The report's charts, drawn with matplotlib and returned as inline SVG strings.

No pyplot: figures are built from ``matplotlib.figure.Figure`` and saved to a buffer, so
drawing works in threads, notebooks and headless CI, with no global figure state. The
SVG is trimmed for inlining into HTML: no XML prolog, no DOCTYPE, no namespace URLs, no
metadata, and element ids prefixed per chart so that several charts share one page.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import AutoLocator, FuncFormatter

from webharness.reporting import formats as fmt
from webharness.reporting.records import EvalAttempt
from webharness.reporting.summary import Rate, Summary

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

STAGES = ("perception", "understanding", "decision", "execution")
_SVG_RC: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",  # text stays text: smaller, selectable, uses page fonts
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "webharness",  # fixed, so the same data gives the same file
}


def render_charts(attempts: list[EvalAttempt], summary: Summary) -> dict[str, str]:
    """Every chart that has data, as ``{title: svg}`` in display order."""
    makers: dict[str, Callable[[], Figure | None]] = {
        "Success by category": lambda: success_by_category(summary),
        "Failure codes": lambda: failure_codes(summary),
        "Root-cause stages (share of failures)": lambda: root_cause_shares(summary),
        "Steps per episode": lambda: steps_histogram(attempts),
        "Robustness by perturbation": lambda: robustness(summary),
        "Success by split": lambda: success_by_split(summary),
    }
    charts = {}
    for index, (title, make) in enumerate(makers.items()):
        with matplotlib.rc_context(_SVG_RC):
            fig = make()
            if fig is not None:
                charts[title] = figure_to_svg(fig, id_prefix=f"chart{index}-")
    return charts


def figure_to_svg(fig: Figure, id_prefix: str = "") -> str:
    """Serialise ``fig`` to an SVG fragment fit to paste into an HTML page.

    Args:
        fig: the figure.
        id_prefix: prepended to every element id and reference to one, since
            matplotlib numbers ids from 1 in each file and ids must be unique per page.
    """
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    # HTML's parser supplies the SVG and xlink namespaces; dropping the declarations
    # leaves the page free of any http(s) string a reviewer would have to vet.
    svg = re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", svg)
    svg = svg.replace(' id="', f' id="{id_prefix}').replace('href="#', f'href="#{id_prefix}')
    return svg.replace("url(#", f"url(#{id_prefix}")


def success_by_category(summary: Summary) -> Figure | None:
    """Grouped bars: success rate per category, one bar per runner, Wilson error bars."""
    categories = sorted({c for g in summary.runners.values() for c in g.by_category})
    rates = {name: g.by_category for name, g in summary.runners.items()}
    return _grouped_rates(categories, rates, xlabel="category")


def robustness(summary: Summary) -> Figure | None:
    """Grouped bars: success rate clean and under each perturbation stack."""
    stacks = sorted({s for g in summary.runners.values() for s in g.by_perturbation})
    if stacks == [""] or not stacks:
        return None  # nothing perturbed: the category chart already shows clean success
    rates = {
        name: {s or "clean": r for s, r in g.by_perturbation.items()}
        for name, g in summary.runners.items()
    }
    return _grouped_rates([s or "clean" for s in stacks], rates, xlabel="perturbation stack")


def success_by_split(summary: Summary) -> Figure | None:
    """Grouped bars: success rate in each split of the run (its generalisation view)."""
    if not summary.splits:
        return None
    rates = {name: g.by_split for name, g in summary.runners.items()}
    return _grouped_rates([s.name for s in summary.splits], rates, xlabel="split")


def failure_codes(summary: Summary) -> Figure | None:
    """Horizontal grouped bars: how often each failure code occurred, per runner."""
    codes = list(summary.overall.failure_codes)  # most common first
    if not codes:
        return None
    fig, ax = _figure(height=1.0 + len(codes) * (0.15 + 0.12 * len(summary.runners)))
    y = np.arange(len(codes))
    width = 0.8 / len(summary.runners)
    for i, (name, group) in enumerate(summary.runners.items()):
        counts = [group.failure_codes.get(c, 0) for c in codes]
        ax.barh(y + i * width, counts, height=width, label=name, color=_colour(i))
    ax.set_yticks(y + width * (len(summary.runners) - 1) / 2, codes)
    ax.invert_yaxis()  # most common on top
    ax.set_xlabel("episodes")
    _integer_ticks(ax.xaxis)
    _legend(ax, len(summary.runners))
    return fig


def root_cause_shares(summary: Summary) -> Figure | None:
    """100% stacked bars: which stage each runner's failures were traced to."""
    seen = {s for g in summary.runners.values() for s in g.root_causes}
    if not seen:
        return None
    stages = [s for s in STAGES if s in seen] + sorted(seen - set(STAGES))
    names = [n for n, g in summary.runners.items() if g.root_causes]
    fig, ax = _figure(height=0.9 + 0.45 * len(names))
    left = np.zeros(len(names))
    for i, stage in enumerate(stages):
        shares = np.array([_share(summary.runners[n].root_causes, stage) for n in names])
        ax.barh(names, shares, left=left, label=stage, color=_colour(i, "Set2"))
        left += shares
    ax.set_xlim(0, 1)
    _percent_ticks(ax.xaxis)
    ax.set_xlabel("share of failures with a root cause")
    ax.invert_yaxis()
    ax.legend(ncols=len(stages), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    return fig


def steps_histogram(attempts: list[EvalAttempt]) -> Figure | None:
    """Step-outline histograms of episode length, one per runner (executable only)."""
    by_runner: dict[str, list[int]] = {}
    for a in attempts:
        if not a.not_executable:
            by_runner.setdefault(a.runner, []).append(a.steps)
    if not by_runner:
        return None
    top = max(max(v) for v in by_runner.values())
    bins = [edge - 0.5 for edge in range(0, top + 2, max(1, (top + 1) // 30))]  # integer-centred
    fig, ax = _figure(height=2.6)
    for i, name in enumerate(sorted(by_runner)):
        ax.hist(
            by_runner[name], bins=bins, histtype="step", linewidth=1.6, label=name, color=_colour(i)
        )
    ax.set_xlabel("steps")
    ax.set_ylabel("episodes")
    _integer_ticks(ax.yaxis)
    _legend(ax, len(by_runner))
    return fig


def _grouped_rates(
    labels: list[str], rates: dict[str, dict[str, Rate]], xlabel: str
) -> Figure | None:
    if not labels or not rates:
        return None
    fig, ax = _figure(height=2.8)
    width = 0.8 / len(rates)
    for i, (name, by_label) in enumerate(rates.items()):
        xs, heights, below, above = [], [], [], []
        for j, label in enumerate(labels):
            rate = by_label.get(label)
            if rate is None or rate.rate is None:
                continue  # no executable episode: leave a gap rather than draw a zero
            xs.append(j + i * width)
            heights.append(rate.rate)
            below.append(rate.rate - (rate.low or 0.0))
            above.append((rate.high or 0.0) - rate.rate)
        ax.bar(
            xs,
            heights,
            width=width,
            label=name,
            color=_colour(i),
            yerr=[below, above],
            capsize=2,
            error_kw={"linewidth": 0.8},
        )
    crowded = len(labels) > 5  # slant long label rows so they do not overlap
    ax.set_xticks(
        np.arange(len(labels)) + width * (len(rates) - 1) / 2,
        labels,
        rotation=20 if crowded else 0,
        ha="right" if crowded else "center",
    )
    ax.set_ylim(0, 1.05)
    _percent_ticks(ax.yaxis)
    ax.set_ylabel("success rate (95% CI)")
    ax.set_xlabel(xlabel)
    _legend(ax, len(rates))
    return fig


def _figure(height: float) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(6.4, height), layout="constrained")
    return fig, fig.add_subplot()


def _legend(ax: Axes, entries: int) -> None:
    ax.legend(ncols=min(entries, 4), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)


def _percent_ticks(axis: Axis) -> None:
    """Shares labelled as the tables write them (``fmt.pct``)."""
    axis.set_major_formatter(FuncFormatter(lambda value, _: fmt.pct(value)))


def _integer_ticks(axis: Axis) -> None:
    """Ticks on whole numbers only: the axis counts episodes or steps."""
    locator = AutoLocator()  # a linear axis's default locator
    locator.set_params(integer=True)
    axis.set_major_locator(locator)


def _colour(index: int, palette: str = "tab10") -> tuple[float, float, float, float]:
    cmap = matplotlib.colormaps[palette]
    return cmap(index % cmap.N)


def _share(counts: dict[str, int], key: str) -> float:
    total = sum(counts.values())
    return counts.get(key, 0) / total if total else 0.0
