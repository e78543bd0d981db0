"""The suite's figures as Markdown: the confusion matrix of expected × annotated codes,
per-code precision, recall and exact-step rate, flag precision and recall, the first
divergence on the cases that must diverge at the fault, and every case's agreement."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from webharness.diagnosis.failures import FailureCode
from webharness.testing.suite import CaseResult

__all__ = ["matrix_markdown", "summary_figures"]


def _label(code: FailureCode | None) -> str:
    return code.value if code is not None else "none (passed)"


def _cell(expected: Any, annotated: Any, show: Callable[[Any], str]) -> str:
    return "✓" if expected == annotated else f"**{show(annotated)}**"


def _ratio(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / total:.0f}%)" if total else "—"


def summary_figures(results: Sequence[CaseResult]) -> dict[str, tuple[int, int]]:
    """The headline figures as (hits, total): code, step, stage, false-success precision
    and recall, first divergence on the cases that must diverge, all of them."""
    claimed = [r for r in results if r.annotated.false_success]
    actual = [r for r in results if r.expected.false_success]
    diverging = [r for r in results if r.divergence_ok is not None]
    deciding = [r for r in results if r.decisive_ok is not None]

    def agree(field: str) -> int:
        return sum(getattr(r.expected, field) == getattr(r.annotated, field) for r in results)

    return {
        "primary code": (agree("code"), len(results)),
        "exact fault step": (agree("step"), len(results)),
        "stage": (agree("stage"), len(results)),
        "false-success precision": (sum(r.expected.false_success for r in claimed), len(claimed)),
        "false-success recall": (sum(r.annotated.false_success for r in actual), len(actual)),
        "not executable": (agree("not_executable"), len(results)),
        "exact first divergence": (sum(bool(r.divergence_ok) for r in diverging), len(diverging)),
        "decisive step": (sum(bool(r.decisive_ok) for r in deciding), len(deciding)),
        "all of them": (sum(r.ok for r in results), len(results)),
    }


def _confusion(results: Sequence[CaseResult]) -> list[str]:
    counts = Counter((r.expected.code, r.annotated.code) for r in results)
    used = [c for c in (None, *FailureCode) if any(c in pair for pair in counts)]
    lines = [
        "| expected ↓ \\ annotated → | "
        + " | ".join(f"`{_label(c)}`" for c in used)
        + " | cases |",
        "| --- |" + " ---: |" * (len(used) + 1),
    ]
    for row in used:
        total = sum(counts[(row, col)] for col in used)
        if total:
            cells = [str(counts[(row, col)]) if counts[(row, col)] else "·" for col in used]
            lines.append(f"| `{_label(row)}` | " + " | ".join(cells) + f" | {total} |")
    return lines


def _per_code(results: Sequence[CaseResult]) -> list[str]:
    lines = [
        "| code | precision | recall | exact step (of its cases) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for code in (None, *FailureCode):
        expected = [r for r in results if r.expected.code is code]
        annotated = [r for r in results if r.annotated.code is code]
        if not expected and not annotated:
            continue
        hits = sum(r.annotated.code is code for r in expected)
        steps = sum(r.annotated.step == r.expected.step for r in expected)
        lines.append(
            f"| `{_label(code)}` | {_ratio(hits, len(annotated))} | {_ratio(hits, len(expected))} "
            f"| {_ratio(steps, len(expected))} |"
        )
    return lines


def _cases(results: Sequence[CaseResult]) -> list[str]:
    lines = [
        "| case | golden path | expected: code @ step, stage | code | step | stage "
        "| false success | not executable | first divergence | decisive step |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        e, a = r.expected, r.annotated
        stage = e.stage.value if e.stage else "—"
        found = r.alignment.first_divergence_step if r.alignment else None
        divergence = {None: "", True: "✓"}.get(r.divergence_ok, f"**{found}**")
        decisive = r.alignment.decisive_step if r.alignment else None
        decided = {None: "", True: "✓"}.get(r.decisive_ok, f"**{decisive}**")
        lines.append(
            f"| `{r.case.id.split('@')[0]}@{r.case.at}` | {r.case.path or 'first'} "
            f"| {_label(e.code)} @ {e.step if e.step is not None else '—'}, {stage} "
            f"| {_cell(e.code, a.code, _label)} | {_cell(e.step, a.step, str)} "
            f"| {_cell(e.stage, a.stage, lambda s: s.value if s else '—')} "
            f"| {_cell(e.false_success, a.false_success, str)} "
            f"| {_cell(e.not_executable, a.not_executable, str)} | {divergence} | {decided} |"
        )
    return lines


def matrix_markdown(results: Sequence[CaseResult]) -> str:
    """Expected code × annotated code counts, the figures, then every case's agreement."""
    figures = summary_figures(results)
    headline = "; ".join(f"{name} {_ratio(*hits)}" for name, hits in figures.items())
    notes = sum(r.notes_ok for r in results)
    return "\n".join(
        [
            *_confusion(results),
            "",
            f"Over the {len(results)} cases: {headline}; "
            f"notes of recovered faults {notes}/{len(results)}.",
            "",
            *_per_code(results),
            "",
            *_cases(results),
        ]
    )
