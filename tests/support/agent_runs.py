"""One ``webharness run`` of named agents, as its user runs it (a process of its own), and
their attempts by name: for the tests of agents that come in through the runner's doors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from webharness.agents.specs import parse_agent_spec
from webharness.reporting.records import read_attempts

REPO = Path(__file__).resolve().parents[2]


def run_agents(
    agents: dict[str, str],
    tasks: list[str],
    seeds: str,
    out: Path,
    *extra: str,
    timeout_s: float = 600,
) -> dict[str, list[Any]]:
    """Run ``agents`` (name: spec) on ``tasks`` and ``seeds`` with two workers in text
    mode, writing to ``out`` (``extra``: more options); each agent's attempts."""
    done = subprocess.run(
        [sys.executable, "-m", "webharness.cli", "run", "--agents", ",".join(agents.values()),
         "--tasks", ",".join(tasks), "--seeds", seeds, "--workers", "2", "--obs-mode", "text",
         *extra, "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=timeout_s,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    labels = {parse_agent_spec(spec).label: name for name, spec in agents.items()}
    by_name: dict[str, list[Any]] = {name: [] for name in agents}
    for attempt in read_attempts(out / "results.jsonl"):
        by_name[labels[attempt.runner]].append(attempt)
    return by_name


def assert_golden_path_followed(attempts: list[Any], seeds: int) -> None:
    """Every seed passed, on the golden path step for step, ended by the agent's printed
    last line (its answer)."""
    assert len(attempts) == seeds and all(a.passed for a in attempts), [
        a.failure_message for a in attempts
    ]
    for attempt in attempts:
        assert attempt.progress_rate == 1.0 and attempt.first_divergence_step is None
        assert attempt.ended_by == "send_msg_to_user"  # its printed last line
