"""Env steps per second, and per busy core-second, of webharness beside BrowserGym and
MiniWoB++ on this machine, in one run (issue #22: a figure no peer publishes).

Each configuration plays its tasks in 1 and then 2 processes at once (the tasks dealt
round-robin between them), and is measured by wall time and by the CPU time the whole
machine spent meanwhile (``/proc/stat``: every process, Chromium's included; so run it on
a quiet machine). A step is one agent action with its observation; a reset is counted
apart. Configurations:

- the random agent of ``bench_miniwob.py`` (``miniwob_agent.py``) on MiniWoB++ tasks, in
  BrowserGym's MiniWoB++ envs, in MiniWoB++'s own (Selenium) and in ours, with screenshots
  and in text mode;
- our oracle over the built-in scenarios, with screenshots and in text mode (the peers
  have no oracle and no such scenarios).

Run: bash benchmarks/peers/setup.sh && python benchmarks/peers/bench_per_core.py
     [--seeds 0-2] [--clicks 5] [--json benchmarks/peers/per_core.json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import pages  # noqa: E402
from bench_miniwob import CHROMIUM, TASKS, VIEWPORT  # noqa: E402

from webharness.envs import registered_ids  # noqa: E402
from webharness.miniwob import PREFIX, library  # noqa: E402

VENVS = HERE / ".venvs"
# The headless shell's binary itself: Debian's /usr/bin/chromium-headless-shell is a script
# that runs it as a child, and chromedriver's quit() ends only the script, which left one
# idle browser behind per MiniWoB++ env (their CPU counted against the runs after them).
BROWSER_BINARY = "/usr/lib/chromium/chromium-headless-shell"
HZ = os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU seconds the machine has spent busy since boot (all but idle and iowait)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / HZ


def run_split(python: Path, driver: str, plan: dict[str, Any], workers: int) -> dict[str, Any]:
    """The plan's tasks dealt to ``workers`` driver processes run at once; the figures."""
    shares = [plan["tasks"][i::workers] for i in range(workers)]
    with tempfile.TemporaryDirectory() as folder:
        logs = [(Path(folder) / f"{i}.out", Path(folder) / f"{i}.err") for i in range(workers)]
        busy, started = busy_seconds(), time.perf_counter()
        procs = []
        for (out, err), share in zip(logs, shares):
            with out.open("w") as stdout, err.open("w") as stderr:
                procs.append(
                    subprocess.Popen(
                        [str(python), str(HERE / "drivers" / driver)],
                        stdin=subprocess.PIPE,
                        stdout=stdout,
                        stderr=stderr,
                        text=True,
                    )
                )
            assert procs[-1].stdin is not None
            procs[-1].stdin.write(json.dumps({**plan, "tasks": share}))
            procs[-1].stdin.close()  # each starts at once: none waits on another's plan
        for proc in procs:
            proc.wait(timeout=3600)
        wall, cpu = time.perf_counter() - started, busy_seconds() - busy
        for proc, (_, err) in zip(procs, logs):
            if proc.returncode != 0:
                raise RuntimeError(f"{driver} failed:\n{err.read_text()[-3000:]}")
        episodes = [
            e
            for out, _ in logs
            for e in json.loads(out.read_text().strip().splitlines()[-1])["episodes"]
        ]
    steps = sum(len(e["step_ms"]) for e in episodes)
    return {
        "workers": workers,
        "episodes": len(episodes),
        "steps": steps,
        "wall_s": round(wall, 2),
        "busy_core_s": round(cpu, 2),
        "steps_per_s": round(steps / wall, 2),
        "steps_per_busy_core_s": round(steps / cpu, 2),
        "episodes_per_busy_core_s": round(len(episodes) / cpu, 3),
        "cores_busy": round(cpu / wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0-2")
    parser.add_argument("--clicks", type=int, default=5)
    parser.add_argument("--json", type=Path, default=HERE / "per_core.json")
    parser.add_argument("--table", action="store_true", help="print the table of --json")
    args = parser.parse_args()
    if args.table:
        print(table(json.loads(args.json.read_text())["rows"]))
        return
    low, _, high = args.seeds.partition("-")
    seeds = list(range(int(low), int(high or low) + 1))
    html = library.html_dir()
    if html is None:
        sys.exit("install the miniwob package: pip install 'webharness[miniwob]'")
    scenarios = [i for i in registered_ids() if not i.startswith(f"WebEval/{PREFIX}")]
    random_plan = {
        "tasks": list(TASKS),
        "seeds": seeds,
        "clicks": args.clicks,
        "chromium": BROWSER_BINARY if Path(BROWSER_BINARY).exists() else CHROMIUM,
        "viewport": VIEWPORT,
    }
    ours = Path(sys.executable)
    rows: list[dict[str, Any]] = []
    started, load_before = dt.datetime.now(), os.getloadavg()
    with pages.miniwob_server(html) as url:
        random_plan["miniwob_url"] = f"{url}/miniwob/"
        configs = [
            (
                "BrowserGym",
                "random",
                VENVS / "browsergym/bin/python",
                "browsergym_miniwob_driver.py",
                random_plan,
            ),
            (
                "MiniWoB++ (Selenium)",
                "random",
                VENVS / "miniwob/bin/python",
                "miniwob_random_driver.py",
                random_plan,
            ),
            (
                "webharness",
                "random",
                ours,
                "webharness_miniwob_driver.py",
                {**random_plan, "obs_mode": "both"},
            ),
            (
                "webharness, text mode",
                "random",
                ours,
                "webharness_miniwob_driver.py",
                {**random_plan, "obs_mode": "text"},
            ),
            (
                "webharness",
                "oracle",
                ours,
                "webharness_oracle_driver.py",
                {"tasks": scenarios, "seeds": seeds, "obs_mode": "both"},
            ),
            (
                "webharness, text mode",
                "oracle",
                ours,
                "webharness_oracle_driver.py",
                {"tasks": scenarios, "seeds": seeds, "obs_mode": "text"},
            ),
        ]
        for library_name, agent, python, driver, plan in configs:
            for workers in (1, 2):
                row = {
                    "library": library_name,
                    "agent": agent,
                    **run_split(python, driver, plan, workers),
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
    summary = {
        "started": started.isoformat(timespec="seconds"),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "cores": os.cpu_count(),
        "rows": rows,
    }
    args.json.write_text(json.dumps(summary, indent=1))
    print(table(rows))


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table of RESULTS_peers.md."""
    lines = [
        "| library | agent | workers | episodes | steps | wall | steps/s | busy cores "
        "| steps per busy core-s | episodes per busy core-s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['library']} | {r['agent']} | {r['workers']} | {r['episodes']} | {r['steps']} "
            f"| {r['wall_s']:.1f} s | {r['steps_per_s']:.2f} | {r['cores_busy']:.2f} "
            f"| **{r['steps_per_busy_core_s']:.2f}** | {r['episodes_per_busy_core_s']:.2f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
