"""webharness against its peers (BrowserGym, MiniWoB++) and the raw Playwright floor.

Same pages for everyone, in one run: MiniWoB++'s own task pages (``click-button``,
``enter-text``, ``click-checkboxes``, from the miniwob package, served on 127.0.0.1) and
one of our scenarios (``WebEval/form-v0``; served to the peers over HTTP from the same
files and backend webharness routes into its contexts). Per library, per page: reset,
an element click step, a coordinate click step (each with the full observation after
it), an observation-only step, and a screenshot alone.

Each library runs in a subprocess with its own interpreter (``drivers/*.py``; the peers'
virtual environments come from ``setup.sh``), one JSON line back on stdout. Rounds run
every library once, in a rotated order; ratios are taken within a round (the machine is
shared and its load drifts) and the report gives their median over rounds.

Run: bash benchmarks/peers/setup.sh && python benchmarks/peers/bench_peers.py
     [--rounds 3] [--episodes 6] [--shipped-episodes 3] [--only webharness,floor]
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import pages  # noqa: E402
from protocol import OPS  # noqa: E402

VENVS = HERE / ".venvs"
DRIVERS = HERE / "drivers"
FORM = "WebEval/form-v0"
MINIWOB_TASKS = {
    # name: (JS finding the element to click, does that click end the episode?)
    "click-button": (
        "(() => { const q = document.querySelector('#query').textContent.match(/\"(.*)\"/)[1];"
        " return [...document.querySelectorAll('#area button')]"
        ".find((b) => b.textContent === q); })()",
        True,
    ),
    "enter-text": ("document.querySelector('#tt')", False),
    "click-checkboxes": ("document.querySelector('#area input[type=checkbox]')", False),
}
FORM_TARGET = "document.querySelector('#f-vip')"  # the "VIP customer" checkbox
FORM_PREPARE = (
    "[...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'New contact')"
)


def venv_python(name: str) -> Path:
    return VENVS / name / "bin" / "python"


# Library configurations: interpreter, driver, plan options.
CONFIGS: dict[str, dict[str, Any]] = {
    "webharness": {
        "python": Path(sys.executable),
        "driver": "webharness_driver.py",
        "options": {"obs_mode": "both"},
    },
    "webharness-text": {
        "python": Path(sys.executable),
        "driver": "webharness_driver.py",
        "options": {"obs_mode": "text", "skip": ["screenshot"]},
    },
    "floor": {"python": Path(sys.executable), "driver": "floor_driver.py", "options": {}},
    "browsergym-tuned": {
        "python": venv_python("browsergym"),
        "driver": "browsergym_driver.py",
        "options": {"tuned": True},
    },
    "browsergym-shipped": {
        "python": venv_python("browsergym"),
        "driver": "browsergym_driver.py",
        "options": {"tuned": False},
    },
    "miniwob": {"python": venv_python("miniwob"), "driver": "miniwob_driver.py", "options": {}},
}


def miniwob_html() -> Path | None:
    found = glob.glob(
        str(VENVS / "miniwob" / "lib" / "python3*" / "site-packages" / "miniwob" / "html")
    )
    return Path(found[0]) if found else None


def build_tasks(miniwob_base: str, form_base: str) -> list[dict[str, Any]]:
    tasks = [
        {
            "name": name,
            "url": f"{miniwob_base}/miniwob/{name}.html?autostart=1&seed={{seed}}",
            "target": target,
            "ends_on_click": ends,
            "native": f"miniwob/{name}",
        }
        for name, (target, ends) in MINIWOB_TASKS.items()
    ]
    tasks.append(
        {
            "name": "form",
            "url": f"{form_base}/index.html",
            "native": FORM,
            "target": FORM_TARGET,
            "prepare": FORM_PREPARE,
        }
    )
    return tasks


def run_driver(config: str, plan: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    spec = CONFIGS[config]
    python = spec["python"]
    if not python.exists():
        return {"adapter": config, "error": f"{python} is missing: run benchmarks/peers/setup.sh"}
    plan = {**plan, "options": {**plan.get("options", {}), **spec["options"]}}
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [str(python), str(DRIVERS / spec["driver"])],
            input=json.dumps(plan),
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        return {"adapter": config, "error": f"no answer within {timeout_s:.0f} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (done.stderr or "")[-1500:]
        return {
            "adapter": config,
            "error": f"driver exited {done.returncode} without results: {tail}",
        }
    result = json.loads(lines[-1])
    result["driver_s"] = round(time.perf_counter() - started, 1)
    if done.stderr.strip():
        result["stderr_tail"] = done.stderr.strip()[-800:]
    return result


# --- summarising ---------------------------------------------------------------------------
GROUPS = {"miniwob": list(MINIWOB_TASKS), "form": ["form"], "all": [*MINIWOB_TASKS, "form"]}


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def pooled(result: dict[str, Any], group: str, op: str) -> float | None:
    """Median of the op's samples over the group's pages (each page weighted by its samples)."""
    tasks = result.get("tasks") or {}
    samples = [s for name in GROUPS[group] for s in (tasks.get(name) or {}).get(op, [])]
    return _median(samples)


def per_task(result: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    return {
        name: {op: _median(v) for op, v in t.items() if op in OPS}
        for name, t in (result.get("tasks") or {}).items()
    }


def ratio(ours: float | None, theirs: float | None) -> float | None:
    return round(ours / theirs, 3) if ours and theirs else None


PAIRS = [  # (ours, baseline): the ratios the issue asks for
    ("webharness", "browsergym-tuned"),
    ("webharness", "browsergym-shipped"),
    ("webharness", "floor"),
    ("webharness", "miniwob"),
    ("webharness-text", "browsergym-tuned"),
    ("webharness-text", "floor"),
]


def round_ratios(round_results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for ours, base in PAIRS:
        if ours not in round_results or base not in round_results:
            continue
        for group in GROUPS:
            for op in OPS:
                r = ratio(
                    pooled(round_results[ours], group, op), pooled(round_results[base], group, op)
                )
                if r is not None:
                    out[f"{ours}/{base}|{group}|{op}"] = r
    return out


def summarise(rounds: list[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    configs = sorted({c for r in rounds for c in r})
    medians: dict[str, Any] = {}
    for config in configs:
        results = [r[config] for r in rounds if config in r]
        medians[config] = {
            group: {
                op: _median(
                    [v for v in (pooled(res, group, op) for res in results) if v is not None]
                )
                for op in OPS
            }
            for group in GROUPS
        }
        medians[config]["per_task"] = {
            name: {
                op: _median(
                    [
                        v
                        for v in (per_task(res).get(name, {}).get(op) for res in results)
                        if v is not None
                    ]
                )
                for op in OPS
            }
            for name in GROUPS["all"]
        }
        mem = [res.get("memory", {}) for res in results]
        medians[config]["memory"] = {
            k: _median([m[k] for m in mem if k in m]) for k in ("peak_rss_mb", "peak_pss_mb")
        }
        errors = sorted(
            {res["error"] for res in results if res.get("error")}
            | {
                f"{n}: {t['error']}"
                for res in results
                for n, t in (res.get("tasks") or {}).items()
                if t.get("error")
            }
        )
        if errors:
            medians[config]["errors"] = errors
        failed = sum(res.get("failed_action_count", 0) for res in results)
        if failed:
            medians[config]["failed_actions"] = failed
    per_round = [round_ratios(r) for r in rounds]
    keys = sorted({k for r in per_round for k in r})
    ratios = {
        k: {
            "median": _median3([r[k] for r in per_round if k in r]),
            "rounds": [r.get(k) for r in per_round],
        }
        for k in keys
    }
    return {"medians_ms": medians, "ratios": ratios}


def _median3(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def targets(
    summary: dict[str, Any], throughput_memory_mb: float | None = None
) -> list[dict[str, Any]]:
    """The issue's targets against this run's figures (step = element click + full observation)."""
    r, m = summary["ratios"], summary["medians_ms"]

    def rat(key: str) -> float | None:
        return (r.get(key) or {}).get("median")

    def med(config: str, group: str, op: str) -> float | None:
        return ((m.get(config) or {}).get(group) or {}).get(op)

    rows = [
        ("step ≤ 0.35× BrowserGym tuned", rat("webharness/browsergym-tuned|all|click"), 0.35),
        ("step ≤ 0.1× BrowserGym as shipped", rat("webharness/browsergym-shipped|all|click"), 0.1),
        ("step ≤ 0.75× raw Playwright floor", rat("webharness/floor|all|click"), 0.75),
        ("reset ≤ 0.1× BrowserGym (tuned)", rat("webharness/browsergym-tuned|all|reset"), 0.1),
        (
            "reset ≤ 0.1× BrowserGym (as shipped)",
            rat("webharness/browsergym-shipped|all|reset"),
            0.1,
        ),
        ("reset ≤ 100 ms", med("webharness", "all", "reset"), 100),
        ("text-mode step ≤ 15 ms", med("webharness-text", "all", "click"), 15),
    ]
    if throughput_memory_mb is not None:
        rows.append(("peak memory per worker ≤ 400 MB", throughput_memory_mb, 400))
    return [
        {
            "target": name,
            "value": value,
            "limit": limit,
            "met": value is not None and value <= limit,
        }
        for name, value, limit in rows
    ]


# --- main ----------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=6, help="measured episodes per page")
    parser.add_argument(
        "--shipped-episodes", type=int, default=3, help="for BrowserGym as shipped (slow)"
    )
    parser.add_argument("--only", help="comma-separated configurations (default: all)")
    parser.add_argument("--json", default=str(HERE / "results.json"))
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per driver run")
    args = parser.parse_args()
    configs = args.only.split(",") if args.only else list(CONFIGS)
    unknown = set(configs) - set(CONFIGS)
    if unknown:
        parser.error(f"unknown configurations {sorted(unknown)}; known: {list(CONFIGS)}")
    html = miniwob_html()
    if html is None:
        sys.exit("the miniwob package (its task pages) is missing: run benchmarks/peers/setup.sh")
    from webharness.browser.host import find_chromium

    chromium = find_chromium()
    load_start = os.getloadavg()
    started = time.perf_counter()
    rounds: list[dict[str, dict[str, Any]]] = []
    site = pages.scenario_site(FORM, seed=7)
    with pages.miniwob_server(html) as miniwob_base, pages.scenario_server(site) as form_base:
        tasks = build_tasks(miniwob_base, form_base)
        for index in range(args.rounds):
            order = configs[index % len(configs) :] + configs[: index % len(configs)]
            results: dict[str, dict[str, Any]] = {}
            for config in order:
                episodes = (
                    args.shipped_episodes if config == "browsergym-shipped" else args.episodes
                )
                # MiniWoB++ only drives MiniWoB++ pages: the form page is tried in round 1 only.
                chosen = [
                    t for t in tasks if config != "miniwob" or t["name"] != "form" or index == 0
                ]
                plan = {
                    "tasks": chosen,
                    "episodes": episodes,
                    "warmup_episodes": 1,
                    "viewport": [1280, 720],
                    "chromium": chromium,
                }
                print(
                    f"[round {index + 1}/{args.rounds}] {config} (load {_load()})",
                    file=sys.stderr,
                    flush=True,
                )
                results[config] = run_driver(config, plan, args.timeout)
                if results[config].get("error"):
                    print(f"  error: {results[config]['error'][:300]}", file=sys.stderr, flush=True)
            rounds.append(results)
            print(
                json.dumps(round_ratios(results), indent=None)[:1500], file=sys.stderr, flush=True
            )
    summary = summarise(rounds)
    report = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "chromium": chromium},
        "load_start": load_start,
        "load_end": os.getloadavg(),
        "wall_s": round(time.perf_counter() - started, 1),
        "args": vars(args),
        "tasks": [t["name"] for t in tasks],
        **summary,
        "targets": targets(summary),
        "rounds": rounds,
    }
    Path(args.json).write_text(json.dumps(report, indent=1))
    print_report(report)


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def print_report(report: dict[str, Any]) -> None:
    print(f"load start {report['load_start']}, end {report['load_end']}; {report['wall_s']} s")
    print(f"{'config':20s} {'group':8s} " + " ".join(f"{op:>11s}" for op in OPS))
    for config, groups in report["medians_ms"].items():
        for group in GROUPS:
            row = groups.get(group, {})
            print(f"{config:20s} {group:8s} " + " ".join(f"{row.get(op) or '-':>11}" for op in OPS))
    print("\nratios (median over rounds):")
    for key, value in report["ratios"].items():
        if "|all|" in key or "|form|" in key:
            print(f"  {key:55s} {value['median']}")
    print("\ntargets:")
    for t in report["targets"]:
        print(f"  {'MET ' if t['met'] else 'miss'} {t['target']:40s} {t['value']}")


if __name__ == "__main__":
    main()
