"""Workers never share an app: with ``--workers 2`` each worker's env runs its own instance
of a task's app, so an episode never sees the record another worker's episode planted; a
task whose app is not per worker (``per_worker: false``) runs its episodes one at a time,
on one instance, after a notice."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from tests.runner.conftest import run
from tests.support.registry import registrations_undone
from webharness import register_tasks
from webharness.reporting.records import EvalAttempt
from webharness.runner import RunFolder
from webharness.testing.processes import cmdline, descendants
from webharness.trace.io import load_trace

APP = Path(__file__).resolve().parents[2] / "examples" / "library_app" / "app.py"
SEEDS = list(range(8))  # four chunks of two: both workers play the task at the same time


def _marker_task(folder: Path, per_worker: bool) -> Path:
    """A task that plants a book named for its episode and passes only when the catalogue
    holds the seed's 15 books and that one: another episode's marker fails it."""
    task = folder / "marker"
    task.mkdir(parents=True)
    app = {
        "command": ["${PYTHON}", str(APP), "--port", "${PORT}", "--data-dir", "${DATA_DIR}"],
        "ready": {"url": "/__ready"},
        "reset": {"url": "/__reset"},
        "per_worker": per_worker,
    }
    state = "JSON.parse((r => (r.open('GET', '/__state{q}', false), r.send(), r.responseText))(new XMLHttpRequest())).count"  # noqa: E501
    spec = {
        "id": "marker",
        "category": "forms",
        "instruction": "Add the book marker-{{token}}.",
        "params": {"token": {"kind": "int", "min": 100000, "max": 999999}},
        "start_url": "${APP_URL}/books/add",
        "app": app,
        "setup": [
            {"http": {"url": "${APP_URL}/__reset", "json": {"session": "s{{token}}"}}},
            {"cookies": [{"name": "session", "value": "s{{token}}"}]},
        ],
        "success": {
            "kind": "all",
            "of": [
                {"kind": "js", "expression": state.format(q="?title=marker-{{token}}") + " === 1"},
                {"kind": "js", "expression": state.format(q="") + " === 16"},
            ],
        },
        "golden_paths": [
            {
                "id": "add",
                "steps": [
                    {
                        "action": "fill",
                        "target": {"role": "textbox", "name": "Title"},
                        "value": "marker-{{token}}",
                    },
                    {
                        "action": "fill",
                        "target": {"role": "textbox", "name": "Author"},
                        "value": "Ann Marker",
                    },
                    {
                        "action": "fill",
                        "target": {"role": "textbox", "name": "ISBN"},
                        "value": "9781402894626",
                    },
                    {
                        "action": "fill",
                        "target": {"role": "spinbutton", "name": "Year"},
                        "value": "2020",
                    },
                    {
                        "action": "select_option",
                        "target": {"role": "combobox", "name": "Genre"},
                        "value": "Poetry",
                    },
                    {"action": "click", "target": {"role": "button", "name": "Save"}},
                    {"action": "done"},
                ],
            }
        ],
    }
    (task / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return task


@pytest.fixture
def registered() -> Iterator[None]:
    with registrations_undone():
        yield


def _episodes(run_dir: Path, attempts: list[EvalAttempt]) -> list[tuple[str, str]]:
    """Each episode's app origin and the list page it ended on (every book's title)."""
    folder = RunFolder(run_dir)
    found = []
    for attempt in attempts:
        trace = load_trace(folder.episode_dir(attempt.trace_dir or ""))
        url = urlsplit(trace.steps[0].state.url)
        found.append((f"{url.scheme}://{url.netloc}", trace.steps[-1].state.text))
    return found


@pytest.mark.slow
def test_two_workers_never_see_each_others_records(browser, registered, tmp_path) -> None:
    (env_id,) = register_tasks(_marker_task(tmp_path / "tasks", per_worker=True), "Marker")
    before = set(descendants())
    _, attempts = run(
        tmp_path / "run", agents=["oracle"], tasks=[env_id], seeds=SEEDS, workers=2,
        golden_cache=None,
    )  # fmt: skip
    assert len(attempts) == len(SEEDS) and all(a.passed for a in attempts), attempts
    episodes = _episodes(tmp_path / "run", attempts)
    for attempt, (_, text) in zip(attempts, episodes):  # on the list it ended on: its own
        assert len(set(re.findall(r"marker-\d+", text))) == 1, (attempt.seed, text)
    assert len({origin for origin, _ in episodes}) == 2  # one instance per worker
    left = {pid: cmdline(pid) for pid in set(descendants()) - before}
    left = {pid: line for pid, line in left.items() if b"resource_tracker" not in line}
    assert not left, left  # the workers and their apps are gone (multiprocessing's own stays)


@pytest.mark.slow
def test_an_app_that_is_not_per_worker_runs_its_episodes_one_at_a_time(
    browser, registered, tmp_path, caplog
) -> None:
    (env_id,) = register_tasks(_marker_task(tmp_path / "tasks", per_worker=False), "Marker")
    with caplog.at_level(logging.WARNING, "webharness.runner.pool"):
        _, attempts = run(
            tmp_path / "run", agents=["oracle"], tasks=[env_id], seeds=SEEDS[:3], workers=2,
            golden_cache=None,
        )  # fmt: skip
    assert len(attempts) == 3 and all(a.passed for a in attempts)
    (notice,) = [r.getMessage() for r in caplog.records]
    assert f"3 episode(s) of {env_id} run one at a time" in notice
    assert len({origin for origin, _ in _episodes(tmp_path / "run", attempts)}) == 1
