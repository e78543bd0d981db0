"""How the reports write numbers, and the terminal's summary table.

Every share (a rate, progress, fidelity) is written by ``pct``, every other number by
``num``, a difference of rates by ``pp``; a missing value is "–" everywhere.

Example:
    >>> pct(0.25), num(0.6090193558586564), num(12.0), pp(-0.125)
    ('25.0%', '0.609', '12', '-12.5 pp')
    >>> usd(0.000015), cost_text(0, None), cost_text(120, None)
    ('$0.000015', '–', 'no price')
"""

from __future__ import annotations

import math

from webharness.reporting.costs import Usage
from webharness.reporting.summary import GroupSummary, Rate, RateGap, Summary

MISSING = "–"
# Evidence values that are shares of 0..1 (the rest of its numbers are counts or scores).
SHARES = frozenset({"progress", "fidelity"})


def format_summary_table(summary: Summary) -> str:
    """A plain-text table of the per-runner headline numbers, for the terminal."""
    header = [
        "runner",
        "n",
        "success [95% CI]",
        "false succ",
        "give up",
        "not exec",
        "steps p50/p95",
        "time p50",
    ]
    priced = summary.overall.usage.tokens > 0
    if priced:
        header += ["tokens in/out", "cost"]
    rows = [header, *(_table_row(name, g, priced) for name, g in summary_rows(summary))]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [_aligned(row, widths) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _aligned(cells: list[str], widths: list[int]) -> str:
    """The first column (names) left-aligned, numbers right-aligned."""
    padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
    return "  ".join(padded).rstrip()


def _table_row(name: str, g: GroupSummary, priced: bool = False) -> list[str]:
    steps = f"{num(g.steps.p50)}/{num(g.steps.p95)}"
    row = [
        name,
        str(g.n),
        ci(g.success),
        pct(g.false_success_rate),
        pct(g.false_give_up_rate),
        f"{g.not_executable} ({pct(g.not_executable_rate)})",
        steps,
        ms(g.duration_ms.p50),
    ]
    if priced:
        u = g.usage
        row += [f"{tokens(u.prompt_tokens)}/{tokens(u.completion_tokens)}", cost(u)]
    return row


def summary_rows(summary: Summary) -> list[tuple[str, GroupSummary]]:
    """Runner rows, plus a pooled "all" row when there is more than one runner."""
    rows = list(summary.runners.items())
    return rows + [("all", summary.overall)] if len(rows) != 1 else rows


def pct(value: float | None) -> str:
    """A share of 0..1 as a percentage: ``25.0%``."""
    return MISSING if value is None else f"{value * 100:.1f}%"


def pp(value: float | None) -> str:
    """A difference of two rates, in signed percentage points."""
    return MISSING if value is None else f"{value * 100:+.1f} pp"


def gap(difference: RateGap) -> str:
    """A gap between two rates with its 95% interval: ``+60.0 pp [+16.2 pp, +80.3 pp]``."""
    if difference.gap is None:
        return MISSING
    return f"{pp(difference.gap)} [{pp(difference.gap_low)}, {pp(difference.gap_high)}]"


def ci(rate: Rate) -> str:
    if rate.rate is None:
        return f"{MISSING} (n=0)"
    return f"{pct(rate.rate)} [{pct(rate.low)}, {pct(rate.high)}] ({rate.successes}/{rate.n})"


def num(value: float | None) -> str:
    """Any other number: whole ones as they are, the rest to three significant digits."""
    if value is None:
        return MISSING
    if float(value).is_integer() or abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def dash(value: object) -> str:
    """A value of a table cell, "–" when there is none."""
    return MISSING if value is None or value == "" else str(value)


def evidence_value(name: str, value: object) -> str:
    """A fact of a failure's evidence as the reports write it: shares by ``pct``, other
    numbers by ``num``, lists and records spelled out (``url: /a, alerts: none``)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return pct(value) if name in SHARES else num(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(evidence_value(name, v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {evidence_value(str(k), v)}" for k, v in value.items())
    return dash(value)


def ms(value: float | None) -> str:
    if value is None:
        return MISSING
    return f"{value / 1000:.1f} s" if value >= 1000 else f"{value:.0f} ms"


def tokens(count: int) -> str:
    return f"{count:,}"


def usd(value: float) -> str:
    """Dollars: cents from $0.01 up, else enough digits to see the first two that count."""
    if value == 0 or value >= 0.01:
        return f"${value:,.2f}"
    return f"${value:.{max(2, 1 - math.floor(math.log10(value)))}f}"


def cost_text(tokens: int, cost: float | None) -> str:
    """A cost as the reports show it: none spent, no price for the tokens, or dollars."""
    if tokens == 0:
        return MISSING
    return "no price" if cost is None else usd(cost)


def cost(usage: Usage) -> str:
    return cost_text(usage.tokens, usage.cost_usd)


def cost_per_episode(usage: Usage) -> str:
    return cost_text(usage.tokens, usage.cost_per_episode_usd)


def md_cell(value: object) -> str:
    """Text safe inside a Markdown table cell: pipes escaped, newlines flattened."""
    return str(value).replace("|", "\\|").replace("\n", " ")
