"""The runner's golden traces come from the cache: recorded once for every agent and run,
and a cache that is read-only, full or damaged never stops a run or gives it a wrong
golden trace."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

import webharness.runner.worker as worker_module
from tests.runner.conftest import run
from tests.support.calls import counted_calls
from tests.support.crashes import first_recordings_crash
from tests.support.mounts import mounted
from webharness.golden.cache import GoldenCache
from webharness.runner import RunFolder

GRID = dict(agents=["oracle"], tasks=["form"], seeds=[0], screenshots=True)
SCORED = ("passed", "failure_code", "fidelity", "progress_rate", "first_divergence_step")


@pytest.fixture
def recordings(monkeypatch) -> list[int]:
    """How many times golden traces were recorded (one count per task and seed)."""
    return counted_calls(monkeypatch, worker_module, "golden_traces")


def outcomes(run_dir: Path) -> list[tuple]:
    return [tuple(getattr(a, f) for f in SCORED) for a in RunFolder(run_dir).read_attempts()]


def golden_files(run_dir: Path) -> dict[str, bytes]:
    root = RunFolder(run_dir).golden_root
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_another_agent_and_another_run_record_no_golden_trace_again(browser, tmp_path, recordings):
    cache = tmp_path / "cache"
    run(tmp_path / "first", **GRID, golden_cache=str(cache))
    assert len(recordings) == 1 and len(GoldenCache(cache).entries()) == 1
    run(tmp_path / "second", **{**GRID, "agents": ["heuristic"]}, golden_cache=str(cache))
    assert len(recordings) == 1  # nothing recorded again
    first, second = golden_files(tmp_path / "first"), golden_files(tmp_path / "second")
    assert first == second and len(first) > 4
    linked = next((RunFolder(tmp_path / "second").golden_root).rglob("steps.jsonl.gz"))
    assert linked.stat().st_nlink == 3  # the cache's file, in both runs: no copies
    shutil.rmtree(cache)  # a run keeps its golden traces without the cache
    assert main_score(tmp_path / "second") == outcomes(tmp_path / "second")


def main_score(run_dir: Path) -> list[tuple]:
    from webharness.runner import score_run

    return [tuple(getattr(a, f) for f in SCORED) for a in score_run(RunFolder(run_dir))]


@pytest.fixture(scope="module")
def plain_run(browser, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``GRID`` run without a cache: what a run whose cache cannot be used must equal (played
    once for the module; the tests only read it)."""
    folder = tmp_path_factory.mktemp("plain") / "run"
    run(folder, **GRID, golden_cache=None)
    return folder


@pytest.mark.parametrize("options", ["ro", "size=12k"])
def test_a_cache_that_cannot_be_written_is_named_and_the_run_records_its_own(
    plain_run, tmp_path, recordings, caplog, options
):
    with mounted(tmp_path / "cache", options) as cache:
        with caplog.at_level(logging.WARNING, logger="webharness.runner.worker"):
            run(tmp_path / "run", **GRID, golden_cache=str(cache))
    assert f"golden-trace cache {cache} cannot be used" in caplog.text
    assert outcomes(tmp_path / "run") == outcomes(plain_run)
    assert golden_files(tmp_path / "run").keys() == golden_files(plain_run).keys()


def test_a_damaged_entry_is_recorded_again_never_used(browser, tmp_path, recordings):
    cache = tmp_path / "cache"
    run(tmp_path / "first", **GRID, golden_cache=str(cache))
    (entry,) = GoldenCache(cache).entries()
    steps = next(entry.folder.rglob("steps.jsonl.gz"))
    steps.unlink()  # the run's hard link keeps its own copy of the bytes
    steps.write_text(steps.parent.joinpath("meta.json").read_text())  # a wrong file there
    run(tmp_path / "second", **GRID, golden_cache=str(cache))
    assert len(recordings) == 2
    assert outcomes(tmp_path / "second") == outcomes(tmp_path / "first")
    assert golden_states(tmp_path / "second") == golden_states(tmp_path / "first")


def test_a_recording_that_failed_in_the_browser_is_not_cached_and_is_recorded_again(
    plain_run, tmp_path, monkeypatch, caplog, recordings
):
    first_recordings_crash(monkeypatch, worker_module)
    cache = tmp_path / "cache"
    with caplog.at_level(logging.WARNING, logger="webharness.runner.worker"):
        run(tmp_path / "first", **GRID, golden_cache=str(cache))
    assert "the golden recording of WebEval/form-v0 seed 0 failed (enter-key: step 1 " in (
        caplog.text
    )
    assert "failed in the browser: Target crashed); it is not cached" in caplog.text
    assert len(recordings) == 2 and GoldenCache(cache).entries() == []
    assert outcomes(tmp_path / "first") == outcomes(plain_run)
    assert golden_states(tmp_path / "first") == golden_states(plain_run)
    run(tmp_path / "second", **GRID, golden_cache=str(cache))  # the next run caches it
    assert len(recordings) == 3 and len(GoldenCache(cache).entries()) == 1
    assert golden_states(tmp_path / "second") == golden_states(plain_run)


def golden_states(run_dir: Path) -> list[list[dict]]:
    """What a golden trace says of the task, step by step (its timings left out)."""
    traces = RunFolder(run_dir).load_goldens("WebEval/form-v0", 0)
    return [[s.model_dump(exclude={"timings_ms"}) for s in t.steps] for t in traces]
