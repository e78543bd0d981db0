"""Runner faults: a worker killed, a full disk, a read-only trace folder, the whole run
killed. The run says what happened, keeps every finished result, and ``--resume`` does
the rest: the same episode keys as an uninterrupted run, none twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.reliability.conftest import our_browser_pids
from tests.support.mounts import mounted
from tests.support.waiting import wait_until
from webharness.errors import RunError
from webharness.reporting.records import read_attempts
from webharness.runner import (
    RunConfig,
    expand_jobs,
    job_chunks,
    prepare_run,
    run_jobs,
)
from webharness.testing.processes import cmdline, wait_for_exit

# Every test runs episodes in worker processes with their own Chromium, and counts them.
pytestmark = [pytest.mark.own_browser, pytest.mark.usefixtures("browser")]

SMALL = dict(
    agents=["oracle", "random"],
    tasks=["form", "stats"],
    seeds=[0],
    obs_mode="text",
    screenshots=False,
)


# The runs the command-line tests stop halfway: async's oracle episodes wait seconds on the
# page's seeded timers (2.5-3.8 s each, little CPU), so a run is still going when the stop
# comes. With form's (0.3 s each), a run that had just recorded its first episode sometimes
# finished all six before the signal, on a busy machine.
HALTED_TASK = "async"
HALTED_ARGS = ["--agents", "oracle,random", "--tasks", HALTED_TASK, "--seeds", "0-2"]


def expected_keys(run_dir: Path, **overrides) -> Counter:
    """The episode keys an uninterrupted run records: each job once."""
    return Counter(job.key() for job in expand_jobs(RunConfig(**{**SMALL, **overrides}), run_dir))


def recorded_keys(run_dir: Path) -> Counter:
    return Counter(a.key() for a in read_attempts(run_dir / "results.jsonl"))


def resume(run_dir: Path, **overrides) -> None:
    config = RunConfig(**{**SMALL, **overrides, "workers": 1})
    run_jobs(prepare_run(config, run_dir, resume=True), config, run_dir)


def wait_for_no_browsers(before: set[int], bound_s: float = 60) -> set[int]:
    wait_for_exit(our_browser_pids() - before, bound_s)
    return our_browser_pids() - before


@pytest.mark.parametrize(
    "options, reason",
    [
        ("size=12k", "No space left on device|disk full"),
        ("ro", "Read-only file system"),
    ],
)
def test_a_trace_folder_that_cannot_be_written_stops_the_run_clearly_and_resume_finishes(
    tmp_path, options, reason
):
    """The random agent's traces go to a tiny (or read-only) disk; the oracle's do not."""
    before = our_browser_pids()
    config = RunConfig(**SMALL)
    with mounted(tmp_path / "episodes" / "random", options) as folder:
        with pytest.raises(RunError, match=reason) as raised:
            run_jobs(prepare_run(config, tmp_path, resume=False), config, tmp_path)
        assert "--resume" in str(raised.value)
        finished = recorded_keys(tmp_path)
        assert sum(1 for key in finished if key[0] == "oracle") == 2, "finished results were lost"
        assert len(finished) < 4 and all(n == 1 for n in finished.values())
        subprocess.run(["mount", "-o", "remount,rw,size=50m", str(folder)], check=True)
        resume(tmp_path)
        assert recorded_keys(tmp_path) == expected_keys(tmp_path)
    assert wait_for_no_browsers(before) == set()


def test_a_killed_worker_process_stops_the_run_clearly_and_resume_finishes(tmp_path):
    before = our_browser_pids()
    config = RunConfig(**{**SMALL, "workers": 2})
    jobs = prepare_run(config, tmp_path, resume=False)
    killed: list[int] = []

    def kill_a_worker(_attempt) -> None:
        if not killed:
            workers = [p for p in _children() if b"spawn_main" in cmdline(p)]
            os.kill(workers[0], signal.SIGKILL)
            killed.append(workers[0])

    with pytest.raises(RunError, match="worker process died"):
        run_jobs(jobs, config, tmp_path, on_result=kill_a_worker)
    assert killed and len(recorded_keys(tmp_path)) >= 1
    resume(tmp_path)
    assert recorded_keys(tmp_path) == expected_keys(tmp_path)
    assert wait_for_no_browsers(before) == set()


def test_each_result_is_sent_as_its_episode_ends_not_with_its_chunk(tmp_path):
    """Chunks of two episodes; every worker is killed at the first result. Had results
    waited for their chunk, the two of one chunk would arrive (and be recorded) together."""
    before = our_browser_pids()
    config = RunConfig(
        **{**SMALL, "agents": ["oracle"], "tasks": ["stats"], "seeds": list(range(8)), "workers": 2}
    )
    jobs = prepare_run(config, tmp_path, resume=False)
    chunks = job_chunks(jobs, config.workers)
    assert {len(c) for c in chunks} == {2}

    def kill_the_workers(_attempt) -> None:
        for pid in _children():
            if b"spawn_main" in cmdline(pid):
                os.kill(pid, signal.SIGKILL)

    with pytest.raises(RunError, match="worker process died"):
        run_jobs(jobs, config, tmp_path, on_result=kill_the_workers)
    recorded = recorded_keys(tmp_path)
    assert recorded, "the first result was not kept"
    for chunk in chunks:
        assert sum(job.key() in recorded for job in chunk) <= 1, (
            "a chunk's results arrived together"
        )
    resume(tmp_path, agents=["oracle"], tasks=["stats"], seeds=list(range(8)))
    assert recorded_keys(tmp_path) == expected_keys(
        tmp_path, agents=["oracle"], tasks=["stats"], seeds=list(range(8))
    )
    assert wait_for_no_browsers(before) == set()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_run_resumed_records_every_episode_once(tmp_path, sig):
    before = our_browser_pids()
    out = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "webharness.cli",
        "run",
        *HALTED_ARGS,
        "--no-screenshots",
        "--obs-mode",
        "text",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_until(lambda: len(recorded_keys(out)) >= 2 or proc.poll() is not None, 240, interval_s=0.1)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(sig)
    proc.wait(60)
    proc.stderr.close()
    halfway = recorded_keys(out)
    assert 2 <= sum(halfway.values()) < 6
    assert wait_for_no_browsers(before) == set(), "the killed run left Chromium behind"
    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert recorded_keys(out) == expected_keys(out, tasks=[HALTED_TASK], seeds=[0, 1, 2])


def test_a_torn_last_line_is_dropped_before_resuming(tmp_path):
    config = RunConfig(**{**SMALL, "agents": ["oracle"], "tasks": ["stats"], "seeds": [0, 1]})
    run_jobs(prepare_run(config, tmp_path, resume=False)[:1], config, tmp_path)
    results = tmp_path / "results.jsonl"
    with results.open("a") as f:
        f.write('{"scenario_id": "WebEval/stats-v0", "categ')  # killed mid-write
    run_jobs(prepare_run(config, tmp_path, resume=True), config, tmp_path)
    assert recorded_keys(tmp_path) == Counter(job.key() for job in expand_jobs(config, tmp_path))


def _children() -> list[int]:
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == me:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_ends_a_run_with_one_line_and_resume_finishes_it(tmp_path, workers):
    """Ctrl-C as a terminal sends it: SIGINT to the run's whole process group (its worker
    processes, Playwright's drivers and the browsers included)."""
    before = our_browser_pids()
    out = tmp_path / "run"
    argv = ["run", *HALTED_ARGS, "--no-screenshots", "--obs-mode", "text"]
    argv += ["--workers", workers, "--out", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "webharness.cli", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job has
    )
    wait_until(lambda: len(recorded_keys(out)) >= 1 or proc.poll() is not None, 240, 0.1)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    kept = sum(recorded_keys(out).values())
    assert proc.returncode == 130, stderr[-2000:]
    lines = [line for line in stderr.splitlines() if line.startswith("webharness:")]
    assert lines == [
        f"webharness: interrupted; {kept} of 6 episodes are kept in {out / 'results.jsonl'}; "
        f"continue with: webharness {' '.join(argv)} --resume"
    ]
    assert "Traceback" not in stderr and "exception was never retrieved" not in stderr, stderr
    assert wait_for_no_browsers(before) == set(), "the interrupted run left Chromium behind"
    resumed = subprocess.run(
        [sys.executable, "-m", "webharness.cli", *argv, "--resume"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"{kept}/6" in resumed.stderr  # the bar counts the whole grid
    assert recorded_keys(out) == expected_keys(out, tasks=[HALTED_TASK], seeds=[0, 1, 2])
