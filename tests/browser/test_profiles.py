"""Playwright's profile folders: each launch marks its own with the browser's process group,
and removes the marked folders whose group has no process left (a driver killed with its
process leaves its browser's folder; no code of that process runs again)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.support.waiting import wait_until
from webharness.browser.process_tree import group_members
from webharness.browser.profiles import (
    OWNER_FILE,
    PLAYWRIGHT_PROFILE_PREFIX,
    remove_left_profiles,
)

NAMESPACE = Path("/proc/self/ns/pid").stat().st_ino


def _folder(base: Path, name: str, owner: object | None) -> Path:
    folder = base / name
    (folder / "Default").mkdir(parents=True)
    if owner is not None:
        text = owner if isinstance(owner, str) else json.dumps(owner)
        (folder / OWNER_FILE).write_text(text)
    return folder


def _last_pid() -> int:
    """The pid of a process that led its own group and has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    child.wait()
    return child.pid


def test_only_marked_folders_of_ended_groups_in_this_namespace_are_removed(tmp_path):
    ended = _last_pid()
    live = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        prefix = PLAYWRIGHT_PROFILE_PREFIX
        dead = _folder(tmp_path, prefix + "dead", {"pid_namespace": NAMESPACE, "group": ended})
        kept = [
            _folder(tmp_path, prefix + "live", {"pid_namespace": NAMESPACE, "group": live.pid}),
            _folder(tmp_path, prefix + "unmarked", None),  # not ours, or still launching
            _folder(
                tmp_path, prefix + "other-ns", {"pid_namespace": NAMESPACE + 1, "group": ended}
            ),
            _folder(tmp_path, prefix + "garbled", "{not json"),
            _folder(tmp_path, prefix + "no-group", {"pid_namespace": NAMESPACE}),
            _folder(tmp_path, "another-name", {"pid_namespace": NAMESPACE, "group": ended}),
        ]
        assert remove_left_profiles(tmp_path) == [dead]
        assert not dead.exists() and all(folder.exists() for folder in kept)
    finally:
        assert live.stdin is not None
        live.stdin.close()
        live.wait()


# Launches a browser, says its profile folder and pid, and waits: the test kills this
# process and its driver together, as Ray kills a worker's process and its children.
_HOLDER = """
from webharness.browser.host import BrowserHost
host = BrowserHost()
host.run(host.browser())
print(host._profile, host._browser_pid, flush=True)
input()
"""


_LAUNCH = """
from webharness.browser.host import BrowserHost
host = BrowserHost()
host.run(host.browser())
host.close()
"""


def test_a_launch_removes_the_folder_a_killed_process_s_browser_left(browser, tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # the driver's and this test's temp folder
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    with holder:
        assert holder.stdout is not None
        profile, pid = holder.stdout.readline().split()
        assert Path(profile).parent == tmp_path and (Path(profile) / OWNER_FILE).exists()
        os.killpg(holder.pid, signal.SIGKILL)  # the process and its driver, no clean-up
    # The browser and its processes end once their driver's pipe closes.
    assert wait_until(lambda: not group_members(int(pid)), 30, interval_s=0.1)
    assert Path(profile).exists()  # left behind
    subprocess.run([sys.executable, "-c", _LAUNCH], env=env, check=True, timeout=120)
    left = [p.name for p in tmp_path.iterdir() if p.name.startswith(PLAYWRIGHT_PROFILE_PREFIX)]
    assert left == []
