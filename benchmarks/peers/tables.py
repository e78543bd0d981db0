"""Markdown tables from results.json / throughput.json / profile.json, for RESULTS_peers.md.

Run: python benchmarks/peers/tables.py [results.json] [throughput.json] [profile.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OPS = ("reset", "first_step", "noop", "screenshot", "click", "mouse_click")
CONFIGS = (
    "webharness",
    "webharness-text",
    "floor",
    "browsergym-tuned",
    "browsergym-shipped",
    "miniwob",
)


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:,.0f}" if isinstance(value, (int, float)) and value >= 100 else f"{value}"


def medians_table(report: dict[str, Any], group: str) -> str:
    rows = ["| library | " + " | ".join(OPS) + " |", "|---|" + "---:|" * len(OPS)]
    for config in CONFIGS:
        figures = (report["medians_ms"].get(config) or {}).get(group)
        if figures and any(figures.get(op) for op in OPS):
            rows.append(f"| {config} | " + " | ".join(_fmt(figures.get(op)) for op in OPS) + " |")
    return "\n".join(rows)


def per_task_table(report: dict[str, Any], op: str) -> str:
    tasks = report["tasks"]
    rows = ["| library | " + " | ".join(tasks) + " |", "|---|" + "---:|" * len(tasks)]
    for config in CONFIGS:
        per_task = (report["medians_ms"].get(config) or {}).get("per_task") or {}
        if per_task:
            rows.append(
                f"| {config} | "
                + " | ".join(_fmt((per_task.get(t) or {}).get(op)) for t in tasks)
                + " |"
            )
    return "\n".join(rows)


def ratios_table(report: dict[str, Any], group: str) -> str:
    pairs = sorted({k.split("|")[0] for k in report["ratios"]})
    rows = [
        "| ours / theirs | " + " | ".join(OPS) + " | per round (click) |",
        "|---|" + "---:|" * len(OPS) + "---|",
    ]
    for pair in pairs:
        cells = [report["ratios"].get(f"{pair}|{group}|{op}", {}).get("median") for op in OPS]
        rounds = report["ratios"].get(f"{pair}|{group}|click", {}).get("rounds")
        rows.append(f"| {pair} | " + " | ".join(_fmt(c) for c in cells) + f" | {rounds} |")
    return "\n".join(rows)


def memory_table(report: dict[str, Any]) -> str:
    rows = ["| library | peak PSS MB | peak RSS-sum MB |", "|---|---:|---:|"]
    for config in CONFIGS:
        mem = (report["medians_ms"].get(config) or {}).get("memory") or {}
        if mem:
            rows.append(
                f"| {config} | {_fmt(mem.get('peak_pss_mb'))} | {_fmt(mem.get('peak_rss_mb'))} |"
            )
    return "\n".join(rows)


def loads_table(report: dict[str, Any]) -> str:
    rows = [
        "| round | library | load before (1/5/15 min) | load after | wall s |",
        "|---|---|---|---|---:|",
    ]
    for index, results in enumerate(report["rounds"], 1):
        for config, r in results.items():
            before = ", ".join(f"{x:.1f}" for x in r.get("load_before", []))
            after = ", ".join(f"{x:.1f}" for x in r.get("load_after", []))
            rows.append(f"| {index} | {config} | {before} | {after} | {r.get('wall_s', '–')} |")
    return "\n".join(rows)


def throughput_table(report: dict[str, Any]) -> str:
    rows = [
        (
            "| run | episodes | passed | s | episodes/min | peak PSS/worker MB "
            "| peak RSS-sum/worker MB | load before | load after |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in report["runs"]:
        label = r["mode"] + (f" (round {r['round']})" if "round" in r else "")
        rows.append(
            f"| {label} | {r.get('episodes', '–')} | {r.get('passed', '–')} "
            f"| {r.get('seconds', '–')} | {r.get('episodes_per_min', '–')} "
            f"| {_fmt(r.get('peak_pss_mb_per_worker'))} | {_fmt(r.get('peak_rss_mb_per_worker'))} "
            f"| {r.get('load_before')} | {r.get('load_after')} |"
        )
    return "\n".join(rows)


def main() -> None:
    paths = [Path(p) for p in sys.argv[1:]] or [
        HERE / "results.json",
        HERE / "throughput.json",
        HERE / "profile.json",
    ]
    for path in paths:
        if not path.exists():
            print(f"<!-- {path} missing -->")
            continue
        report = json.loads(path.read_text())
        print(f"<!-- from {path.name} -->")
        if "medians_ms" in report:
            for group in ("all", "miniwob", "form"):
                print(f"\n#### medians, {group} (ms)\n\n{medians_table(report, group)}")
                print(f"\n#### ratios, {group}\n\n{ratios_table(report, group)}")
            for op in ("click", "reset"):
                print(f"\n#### {op} per page (ms)\n\n{per_task_table(report, op)}")
            print(f"\n#### memory\n\n{memory_table(report)}\n\n#### loads\n\n{loads_table(report)}")
            print("\n#### targets\n\n| target | value | met |\n|---|---:|---|")
            for t in report["targets"]:
                print(f"| {t['target']} | {t['value']} | {'yes' if t['met'] else 'no'} |")
        elif "runs" in report:
            print(
                f"\n{throughput_table(report)}\n\n"
                f"2 vs 1 workers: {report.get('ratio_2_vs_1_median')} "
                f"(per round {report.get('ratio_2_vs_1_per_round')})"
            )
        else:
            print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
