"""Speed of golden-trace alignment: a 200-step agent trace against a 20-step golden trace.

Builds the traces synthetically (a 30-control form filled one field per step, rows added
to the app data every few steps; the agent wanders off, repeats and comes back), times
``align`` over 20 runs and prints the median. Exits 1 when the median exceeds the budget.

    python3 benchmarks/bench_alignment.py [--budget-ms 50] [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

from webharness.diagnosis.alignment import align
from webharness.semantic import Element, Heading, SemanticState
from webharness.trace.models import EpisodeTrace, StepRecord, TaskInstance

FIELDS = 30
GOLDEN_STEPS = 20
AGENT_STEPS = 200


def form_state(filled: int, refs: int, path: str = "/form") -> SemanticState:
    """The form with the first ``filled`` fields typed in; a row saved every 5 fields."""
    elements = [
        Element(
            ref=f"e{refs + i}",
            role="textbox",
            name=f"Field {i}",
            value=f"value {i}" if i < filled else "",
        )
        for i in range(FIELDS)
    ] + [Element(ref=f"e{refs + FIELDS}", role="button", name="Save")]
    rows = [
        {"id": n, "fields": [f"value {i}" for i in range(5 * n, 5 * n + 5)]}
        for n in range(filled // 5)
    ]
    return SemanticState(
        url=f"http://webeval.test{path}",
        title="Form",
        elements=elements,
        headings=[Heading(level=1, text="Form")],
        app={"records": rows},
    )


def trace(states: list[SemanticState], actions: list[str | None]) -> EpisodeTrace:
    task = TaskInstance(
        task_id="bench", env_id="WebEval/bench-v0", category="bench", seed=0, instruction="fill"
    )
    steps = [
        StepRecord(index=i, state=s, action=a) for i, (s, a) in enumerate(zip(states, actions))
    ]
    return EpisodeTrace(task=task, steps=steps, golden_path="bench")


def golden_trace() -> EpisodeTrace:
    states = [form_state(n, refs=0) for n in range(GOLDEN_STEPS + 1)]
    actions = [None] + [f"fill('e{n}', 'value {n}')" for n in range(GOLDEN_STEPS)]
    return trace(states, actions)


def agent_trace(seed: int = 0) -> EpisodeTrace:
    """200 steps: the golden route with detours, repeats and wrong values mixed in."""
    rng = np.random.default_rng(seed)
    states, actions, filled = [form_state(0, refs=1000)], [None], 0
    while len(states) < AGENT_STEPS + 1:
        roll = rng.random()
        if roll < 0.15 and filled < GOLDEN_STEPS:
            filled += 1
            states.append(form_state(filled, refs=1000))
            actions.append(f"fill('e{1000 + filled - 1}', 'value {filled - 1}')")
        elif roll < 0.55:
            states.append(form_state(filled, refs=1000, path=f"/help/{int(rng.integers(5))}"))
            actions.append("click('e1030')")
        else:
            states.append(form_state(filled, refs=1000))
            actions.append(f"fill('e{1000 + int(rng.integers(FIELDS))}', 'oops')")
    return trace(states, actions)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget-ms", type=float, default=50.0)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    agent, golden = agent_trace(), golden_trace()
    align(agent, golden)  # warm-up: imports, pydantic schema caches
    wall, cpu = [], []
    for _ in range(args.runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        align(agent, golden)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    median = statistics.median(wall)
    print(
        f"align: {len(agent.steps) - 1}-step agent trace vs "
        f"{len(golden.steps) - 1}-step golden trace, "
        f"median of {args.runs} runs: {median:.1f} ms wall "
        f"(min {min(wall):.1f}, max {max(wall):.1f}), "
        f"{statistics.median(cpu):.1f} ms CPU; budget {args.budget_ms:.0f} ms; "
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}"
    )  # a busy machine inflates wall time: say so
    return 0 if median <= args.budget_ms else 1


if __name__ == "__main__":
    sys.exit(main())
