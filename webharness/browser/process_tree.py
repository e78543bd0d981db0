"""Processes read from ``/proc``: a process's descendants and command line, and waiting
for processes that are not our children to exit. The host uses them to take down a browser
whose driver died; the test tools (``webharness.testing.processes``) to check that no
Chromium is left behind. Linux only; elsewhere they find nothing."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

KILL_WAIT_S = 10.0  # for a SIGKILLed group to be gone


def _process_table() -> tuple[dict[int, int], dict[int, str], dict[int, int]]:
    """Parent, name and process group of every live process (zombies left out: they hold
    nothing)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    groups: dict[int, int] = {}
    if not Path("/proc").is_dir():
        return parents, names, groups  # not Linux: nothing to read
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        end = stat.rindex(")")
        if stat[end + 2] == "Z":
            continue
        fields = stat[end + 2 :].split()
        names[pid] = stat[stat.index("(") + 1 : end]
        parents[pid], groups[pid] = int(fields[1]), int(fields[2])
    return parents, names, groups


def descendants(root: int | None = None) -> dict[int, str]:
    """Live descendants of ``root`` (this process by default), with their names."""
    parents, names, _ = _process_table()
    top = os.getpid() if root is None else root

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == top:
                return True
        return False

    return {pid: name for pid, name in names.items() if ours(pid)}


def group_members(group: int) -> set[int]:
    """The live processes of process group ``group`` (zombies left out)."""
    _, _, groups = _process_table()
    return {pid for pid, of in groups.items() if of == group}


def live_groups() -> set[int]:
    """The process groups that have a live process (zombies left out)."""
    return set(_process_table()[2].values())


def kill_group(leader: int) -> set[int]:
    """SIGKILL the process group ``leader`` leads, or only ``leader`` where it leads none.

    A group outlives its leader while a member lives, so this also reaches the processes
    of a leader that has already exited. Returns the processes signalled (they may not
    have exited yet: ``wait_for_exit``)."""
    if leader <= 1:  # 0 would be this process's own group; 1 is init
        raise ValueError(f"not a process to kill with its group: {leader}")
    members = group_members(leader)
    try:
        os.killpg(leader, signal.SIGKILL)
        return members
    except ProcessLookupError:  # no such group: the leader alone, if it is still there
        pass
    except PermissionError:
        return set()
    try:
        os.kill(leader, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return set()
    return {leader}


def end_group(process: subprocess.Popen[bytes], first: signal.Signals, grace_s: float) -> None:
    """End the process group ``process`` leads (started with ``start_new_session``): ``first``
    to the group, SIGKILL to what is left after ``grace_s``, and the leader reaped.

    Members that outlive an exited leader are reached too: the group lives on with them.
    """
    group = process.pid  # start_new_session: the leader's pid is the group's id
    try:
        os.killpg(group, first)
    except ProcessLookupError:
        pass  # every member has exited already
    wait_for_exit(group_members(group) | {group}, grace_s)
    if process.poll() is None or group_members(group):
        wait_for_exit(kill_group(group), KILL_WAIT_S)
    process.wait(timeout=KILL_WAIT_S)  # reap the leader


def cmdline(pid: int) -> bytes:
    """A process's command line as the kernel holds it (b"" once it is gone). Chromium
    rewrites its children's into one space-separated string; others are NUL-separated."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def wait_for_exit(pids: Iterable[int], timeout_s: float) -> bool:
    """Block until every process of ``pids`` has exited (a zombie counts), or the bound.

    Woken by the exits themselves: a pidfd becomes readable when its process ends.
    True when all have ended; a process already gone counts as ended.
    """
    deadline = time.monotonic() + timeout_s
    pending: set[int] = set()
    try:
        for pid in pids:
            try:
                pending.add(os.pidfd_open(pid))
            except ProcessLookupError:
                pass  # already gone
        while pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            ended, _, _ = select.select(list(pending), [], [], remaining)
            for fd in ended:
                os.close(fd)
            pending.difference_update(ended)
        return True
    finally:
        for fd in pending:
            os.close(fd)
