"""MiniWoB++ in webharness against BrowserGym's MiniWoB++ envs: the same tasks, seeds and
random agent (``miniwob_agent.py``) in both; step and reset times side by side, and
whether both libraries end each episode the same way.

The pages are the miniwob package's own, served on 127.0.0.1 for BrowserGym
(``MINIWOB_URL``); webharness routes the same files into its contexts. BrowserGym seeds a
page with ``RandomState(seed).randint(0, 1000000)``; our driver resets with that page
seed, so both show the same instance, which the goals confirm. Each library runs in its
own process and virtualenv (``setup.sh`` makes BrowserGym's, with browsergym-miniwob),
one after the other, on the same Chromium headless shell, at BrowserGym's MiniWoB++
viewport (332x214).

With ``--pointer`` it compares outcomes on the drag, draw, resize and text-selection
tasks instead: the suite's scripted pixel agent (``tests/support/miniwob_pointer.py``)
plays each task and seed in both libraries with the same points, in our pixel actions and
in BrowserGym's coordinate actions (``mouse_down``, ``mouse_move``, ``mouse_up``,
``mouse_click``, ``noop``), and the table says whether each library succeeded
(``miniwob_pointer_results.json``).

Run: bash benchmarks/peers/setup.sh && python benchmarks/peers/bench_miniwob.py
     [--seeds 0-4] [--clicks 5] [--tasks click-button,enter-text] [--pointer]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))  # the repository: tests.support

import pages  # noqa: E402

from tests.support.miniwob_pointer import TASKS as POINTER_TASKS  # noqa: E402
from webharness.miniwob import library  # noqa: E402
from webharness.spec.catalogue import get_task  # noqa: E402

# Tasks whose controls are native or ARIA widgets (the random agent's candidates), of
# several kinds: buttons, checkboxes, radios, tabs, dialogs, fields, lists, spinners.
TASKS = (
    "click-button click-button-sequence click-checkboxes click-checkboxes-large "
    "click-checkboxes-soft click-checkboxes-transfer click-collapsible click-collapsible-2 "
    "click-dialog click-dialog-2 click-option click-tab click-test click-test-2 click-widget "
    "choose-list enter-password enter-text focus-text focus-text-2 identify-shape login-user "
    "multi-layouts multi-orderings use-spinner"
).split()
OUT = HERE / "miniwob_results.json"
POINTER_OUT = HERE / "miniwob_pointer_results.json"
CHROMIUM = "/usr/bin/chromium-headless-shell"
VIEWPORT = (332, 214)  # BrowserGym's MiniWoB++ viewport


def _run(python: Path, driver: str, plan: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [str(python), str(HERE / "drivers" / driver)],
        input=json.dumps(plan),
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=3600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{driver} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def _times(result: dict[str, Any]) -> dict[str, float]:
    episodes = result["episodes"]
    return {
        "reset_ms": _median([e["reset_ms"] for e in episodes]),
        "step_ms": _median([ms for e in episodes for ms in e["step_ms"]]),
    }


def _success(task: str, raw: float, done: bool) -> bool:
    """Our rule (the spec's page_reward): done, and the raw reward at the threshold."""
    return done and raw >= get_task(f"WebEval/miniwob.{task}-v0").success.threshold


def agreement(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """Per episode, whether the two libraries saw the same instance, took the same actions
    and ended the same way; and where their success rules part."""
    pairs = list(zip(ours["episodes"], theirs["episodes"]))
    assert all((a["task"], a["seed"]) == (b["task"], b["seed"]) for a, b in pairs)
    differ = [
        {k: (a[k], b[k]) for k in ("goal", "actions", "done", "raw_reward") if a[k] != b[k]}
        | {"task": a["task"], "seed": a["seed"]}
        for a, b in pairs
        if any(a[k] != b[k] for k in ("goal", "actions", "done", "raw_reward"))
    ]
    rules_part = [
        {"task": b["task"], "seed": b["seed"], "raw_reward": b["raw_reward"]}
        for a, b in pairs
        if a["success"] != (b["reward"] > 0)
    ]
    return {
        "episodes": len(pairs),
        "tasks": len({a["task"] for a, _ in pairs}),
        "same_goal": sum(a["goal"] == b["goal"] for a, b in pairs),
        "same_actions": sum(a["actions"] == b["actions"] for a, b in pairs),
        "same_outcome": sum(
            (a["done"], a["raw_reward"]) == (b["done"], b["raw_reward"]) for a, b in pairs
        ),
        "same_success_same_rule": sum(
            a["success"] == _success(b["task"], b["raw_reward"], b["done"]) for a, b in pairs
        ),
        "success_ours": sum(a["success"] for a, _ in pairs),
        "success_browsergym_rule": sum(b["reward"] > 0 for _, b in pairs),
        "differ": differ,
        "rules_part": rules_part,
    }


def pointer_outcomes(ours: dict[str, Any], theirs: dict[str, Any]) -> list[dict[str, Any]]:
    """Per task and seed: the same goal and ops?, each library's raw reward and success (ours by
    our rule; BrowserGym's by our rule and by its own, a raw reward above 0)."""
    rows = []
    for a, b in zip(ours["episodes"], theirs["episodes"]):
        assert (a["task"], a["seed"]) == (b["task"], b["seed"])
        rows.append(
            {
                "task": a["task"],
                "seed": a["seed"],
                "same_goal": a["goal"] == b["goal"],
                "same_ops": a["actions"] == b["actions"],
                "steps": (len(a["actions"]), len(b["actions"])),
                "webharness": {"raw_reward": a["raw_reward"], "success": a["success"]},
                "browsergym": {
                    "raw_reward": b["raw_reward"],
                    "success": _success(b["task"], b["raw_reward"], b["done"]),
                    "success_own_rule": b["reward"] > 0,
                },
            }
        )
    return rows


def _plan(args: argparse.Namespace) -> dict[str, Any]:
    low, _, high = args.seeds.partition("-")
    return {
        "tasks": args.tasks.split(","),
        "seeds": list(range(int(low), int(high or low) + 1)),
        "clicks": args.clicks,
        "chromium": CHROMIUM,
        "viewport": VIEWPORT,
        **({"agent": "pointer"} if args.pointer else {}),
    }


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default=None, help="default 0-4; 0-1 with --pointer")
    parser.add_argument("--clicks", type=int, default=5)
    parser.add_argument("--tasks", default=None)
    parser.add_argument("--pointer", action="store_true", help="the pixel agent's tasks")
    args = parser.parse_args()
    args.seeds = args.seeds or ("0-1" if args.pointer else "0-4")
    args.tasks = args.tasks or ",".join(POINTER_TASKS if args.pointer else TASKS)
    return args


def main() -> None:
    args = _args()
    html = library.html_dir()
    if html is None:
        sys.exit("install the miniwob package: pip install 'webharness[miniwob]'")
    plan = _plan(args)
    started = dt.datetime.now()
    load_before = os.getloadavg()
    results: dict[str, Any] = {}
    with pages.miniwob_server(html) as url:
        browsergym = HERE / ".venvs" / "browsergym" / "bin" / "python"
        results["browsergym"] = _run(
            browsergym,
            "browsergym_miniwob_driver.py",
            {**plan, "miniwob_url": f"{url}/miniwob/"},
            {"MINIWOB_URL": f"{url}/miniwob/"},
        )
        for mode in ("both",) if args.pointer else ("both", "text"):
            found = _run(
                Path(sys.executable), "webharness_miniwob_driver.py", {**plan, "obs_mode": mode}, {}
            )
            results[found["library"]] = found
    run = {
        "started": started.isoformat(timespec="seconds"),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "plan": plan,
        "times": {name: _times(result) for name, result in results.items()},
    }
    if args.pointer:
        report = {
            **run,
            "errors": {name: result["errors"] for name, result in results.items()},
            "outcomes": pointer_outcomes(results["webharness"], results["browsergym"]),
        }
        POINTER_OUT.write_text(json.dumps({"summary": report, "results": results}, indent=1))
        print(json.dumps(report, indent=1))
        return
    summary = {
        **run,
        "agreement": agreement(results["webharness"], results["browsergym"]),
        "agreement_text_mode": agreement(results["webharness-text"], results["browsergym"]),
        "errors": {name: result["error_count"] for name, result in results.items()},
        "by_coordinates": {n: r.get("by_coordinates", 0) for n, r in results.items()},
    }
    OUT.write_text(json.dumps({"summary": summary, "results": results}, indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
