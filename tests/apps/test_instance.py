"""An app instance's lifecycle, without a browser: it starts on a free port with a data
folder of its own, waits until it answers, resets, and stops its whole process group; an
app that cannot start, exits or is never ready raises an AppError naming the command and
its last lines of output, and leaves nothing running."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.support.waiting import wait_until
from webharness.apps import AppInstance, guard
from webharness.errors import AppError
from webharness.spec.app_spec import AppSpec

REPO = Path(__file__).resolve().parents[2]
TINY = ["${PYTHON}", "-m", "tests.support.tiny_app", "--port", "${PORT}"]
TINY += ["--data-dir", "${DATA_DIR}"]
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _spec(**fields: Any) -> AppSpec:
    return AppSpec.model_validate(
        {"command": TINY, "cwd": str(REPO), "ready": {"url": "/ready"}, **fields}
    )


def _get(url: str) -> Any:
    with _OPENER.open(url, timeout=5) as answer:
        return json.loads(answer.read())


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def test_start_waits_until_ready_then_reset_and_stop(tmp_path):
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "seed.json").write_text("{}")
    spec = _spec(
        command=[*TINY, "--ready-after", "0.6"],  # 503 until then: start polls
        data=str(fixture),
        reset={"method": "POST", "url": "/reset"},
    )
    app = AppInstance(spec)
    began = time.monotonic()
    with app:
        assert time.monotonic() - began >= 0.6 and app.running
        assert app.url == f"http://127.0.0.1:{app.port}" and app.variables == {"APP_URL": app.url}
        assert _get(app.url + "/files") == ["seed.json"]  # ${DATA_DIR}: a copy of the data
        app.reset()
        app.reset()
        assert (app.data_dir / "resets").read_text() == "2"
        assert (
            f"--port {app.port}" in app.command and "tiny app on port" in app.log_path.read_text()
        )
        folder, pid = app.folder, app.pid
    assert pid is not None and not _alive(pid) and not app.running
    assert not folder.exists()  # a temporary instance folder goes with it
    assert (fixture / "seed.json").exists()  # the fixture itself is untouched
    app.stop()  # again: nothing to do


def test_stop_ends_the_whole_process_group_even_a_child_that_ignores_the_signal(tmp_path):
    # the shell ignores SIGTERM and so does the child it forks: only SIGKILL ends them
    script = 'trap \'\' TERM; sleep 300 & echo $! > "$DATA_DIR/child"; exec "$0" "$@"'
    spec = _spec(command=["sh", "-c", script, *TINY], stop={"grace_s": 0.5})
    app = AppInstance(spec, workdir=tmp_path).start()
    child = int((app.data_dir / "child").read_text())
    leader = app.pid
    assert leader is not None and _alive(child) and _alive(leader)
    app.stop()
    assert wait_until(lambda: not _alive(child) and not _alive(leader), 5)
    assert app.log_path.exists() and not app.data_dir.exists()  # the caller's folder keeps the log


def test_an_app_that_exits_at_once_names_the_command_and_its_last_lines(tmp_path):
    script = "for i in $(seq 1 30); do echo line $i; done; exit 3"
    with pytest.raises(AppError) as caught:
        AppInstance(_spec(command=["sh", "-c", script]), workdir=tmp_path).start()
    message = str(caught.value)
    assert "exited with status 3 before it was ready" in message
    assert "sh -c 'for i in $(seq 1 30)" in message
    lines = [line.strip("| ") for line in message.splitlines() if line.startswith("  | ")]
    assert lines == [f"line {i}" for i in range(11, 31)]  # the last 20
    assert guard.running() == []


def test_an_app_that_never_gets_ready_is_stopped_and_named(tmp_path):
    script = 'echo "listening soon"; sleep 300 & echo "child $!"; wait'
    spec = _spec(command=["sh", "-c", script], ready={"url": "/ready", "timeout_s": 0.5})
    app = AppInstance(spec, workdir=tmp_path)
    with pytest.raises(AppError) as caught:
        app.start()
    message = str(caught.value)
    assert "was not ready within 0.5 s" in message and "Connection refused" in message
    assert 'echo "listening soon"' in message and "  | listening soon" in message
    assert str(app.log_path) in message  # the caller's folder keeps the log: it is named
    child = int(message.rpartition("  | child ")[2].split()[0])
    assert wait_until(lambda: not _alive(child), 5)  # the sleep it forked is gone too
    assert not app.running and guard.running() == []


def test_a_program_that_is_not_there_is_named():
    with pytest.raises(
        AppError, match=r"app 'no-such-server-xyz \d+' .* cannot be started \(No such file"
    ):
        AppInstance(_spec(command=["no-such-server-xyz", "${PORT}"])).start()


def test_two_instances_get_their_own_ports_and_data(tmp_path):
    fixture = tmp_path / "seed.json"
    fixture.write_text("{}")
    with AppInstance(_spec(data=str(fixture))) as one, AppInstance(_spec(data=str(fixture))) as two:
        assert one.port != two.port and one.data_dir != two.data_dir
        (one.data_dir / "mine").write_text("one's")
        assert _get(one.url + "/files") == ["mine", "seed.json"]
        assert _get(two.url + "/files") == ["seed.json"]


@pytest.mark.parametrize(
    ("reset", "said"),
    [
        ({"method": "POST", "url": "/fail"}, "failed its reset (POST http://127.0.0.1:"),
        ({"command": ["sh", "-c", "echo cannot reseed; exit 2"]}, "exit status 2"),
        ({"command": ["sh", "-c", "sleep 5"], "timeout_s": 0.3}, "still running after 0.3 s"),
    ],
)
def test_a_reset_that_fails_raises_an_app_error_naming_it(reset, said):
    with AppInstance(_spec(reset=reset)) as app:
        with pytest.raises(AppError) as caught:
            app.reset()
    assert said in str(caught.value) and "tests.support.tiny_app" in str(caught.value)
    if "command" in reset and "echo" in reset["command"][2]:
        assert "  | cannot reseed" in str(caught.value)


def test_an_instance_not_running_cannot_be_reset_or_read():
    app = AppInstance(_spec())
    with pytest.raises(AppError, match="call start"):
        app.reset()
    with pytest.raises(AppError, match="has not been started"):
        app.url  # noqa: B018


def test_keep_leaves_the_data_after_stop():
    with AppInstance(_spec(), keep=True) as app:
        (app.data_dir / "state").write_text("kept")
    assert (app.data_dir / "state").read_text() == "kept"
    shutil.rmtree(app.folder)


def test_no_app_outlives_the_interpreter_that_started_it(tmp_path):
    script = (
        "import sys; from webharness.apps import AppInstance, AppSpec\n"
        f"spec = AppSpec.model_validate({{'command': {TINY!r}, 'cwd': {str(REPO)!r}, "
        "'ready': {'url': '/ready'}})\n"
        "app = AppInstance(spec).start()\n"
        "print(app.pid, app.folder, flush=True)\n"  # and exit without stopping it
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    pid, folder = done.stdout.split()
    assert not _alive(int(pid)) and not Path(folder).exists()
    assert os.getpid() != int(pid)


def test_data_that_is_gone_by_the_start_is_an_app_error(tmp_path):
    fixture = tmp_path / "seed.json"
    fixture.write_text("{}")
    spec = _spec(data=str(fixture))
    fixture.unlink()  # after the declaration was read
    with pytest.raises(AppError, match=r"cannot have its data copied .*seed\.json"):
        AppInstance(spec, workdir=tmp_path / "runs").start()
    assert guard.running() == []
