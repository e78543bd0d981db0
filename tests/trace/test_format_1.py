"""A run saved before traces kept frames as WebP and states as changes (trace format 1:
PNG frames, every state whole) is read, re-scored and reported as it was scored then.

``tests/fixtures/run_format_1`` was written by webharness at 272b4d7 (the last commit of
format 1): ``webharness run --agents oracle,heuristic,random --tasks login --seeds 0
--no-screenshots``, the report files left out.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from webharness.cli import main
from webharness.reporting.records import read_attempts
from webharness.runner import RunFolder

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "run_format_1"
SCORED = (
    "runner",
    "passed",
    "false_success",
    "failure_code",
    "root_cause",
    "failure_step",
    "first_divergence_step",
    "decisive_step",
    "progress_rate",
    "fidelity",
)


def scored(attempts) -> list[tuple]:
    return [tuple(getattr(a, name) for name in SCORED) for a in attempts]


def test_a_format_1_run_rescores_to_the_results_it_was_recorded_with(tmp_path: Path) -> None:
    copy = shutil.copytree(FIXTURE, tmp_path / "run")
    assert main(["score", str(copy)]) == 0
    run = RunFolder(copy)
    recorded = read_attempts(run.results)
    assert {a.runner for a in recorded} == {"oracle", "heuristic", "random"}
    assert scored(read_attempts(run.rescored)) == scored(recorded)


def test_a_format_1_run_is_reported(tmp_path: Path) -> None:
    run = shutil.copytree(FIXTURE, tmp_path / "run")
    assert main(["report", str(run)]) == 0
    assert "login-v0" in (run / "report.md").read_text()
