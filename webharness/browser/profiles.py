"""The profile folders Playwright makes in the temporary folder, one a launch, and the ones
left behind.

Playwright's driver removes a browser's folder (~220 KB) once the browser has closed. A
driver killed with its process (SIGKILL, the OOM killer, a Ray node stopped: Ray kills its
workers' children) leaves it, and no code of that process runs again. So each launch marks
its folder with the browser's process group, and removes the marked folders whose group has
no process left: only folders of our own launches, and only in our PID namespace (a
container sharing the temporary folder sees other processes).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from webharness.browser.process_tree import cmdline, live_groups

# How Playwright names the profile folder it makes for each launch (never a user's own).
PLAYWRIGHT_PROFILE_PREFIX = "playwright_chromiumdev_profile-"
# The file a launch writes into its browser's profile folder: whose it is.
OWNER_FILE = ".webharness-owner"
_PID_NAMESPACE = Path("/proc/self/ns/pid")


def profile_folder(pid: int) -> Path | None:
    """The profile folder Playwright made for browser ``pid`` (from its command line, on
    Linux); None when there is none to read."""
    for arg in cmdline(pid).split(b"\0"):
        if arg.startswith(b"--user-data-dir="):
            folder = Path(os.fsdecode(arg.partition(b"=")[2]))
            if folder.name.startswith(PLAYWRIGHT_PROFILE_PREFIX):
                return folder
    return None


def mark_profile(folder: Path, browser_pid: int) -> None:
    """Record in ``folder`` that the process group of ``browser_pid`` (its leader) uses it.
    Best effort: a folder left unmarked is only never removed by ``remove_left_profiles``."""
    with contextlib.suppress(OSError):
        owner = {"pid_namespace": _PID_NAMESPACE.stat().st_ino, "group": browser_pid}
        (folder / OWNER_FILE).write_text(json.dumps(owner))


def remove_left_profiles(folder: Path) -> list[Path]:
    """Remove the marked profile folders in ``folder`` (the driver's temporary folder) whose
    browser's process group, in this PID namespace, has no process left. Returns them."""
    if not _PID_NAMESPACE.exists():
        return []  # no /proc to tell a live browser from a dead one
    namespace = _PID_NAMESPACE.stat().st_ino
    owners: dict[Path, int] = {}
    for path in folder.glob(PLAYWRIGHT_PROFILE_PREFIX + "*"):
        try:
            owner = json.loads((path / OWNER_FILE).read_text())
            if owner["pid_namespace"] == namespace:
                owners[path] = int(owner["group"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not marked (not ours, or still launching), or removed meanwhile
    live = live_groups() if owners else set()
    left = [path for path, group in owners.items() if group not in live]
    for path in left:
        shutil.rmtree(path, ignore_errors=True)
    return left
