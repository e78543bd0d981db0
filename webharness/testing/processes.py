"""The processes this one started, read from ``/proc``: for checks that no Chromium is
left behind (tests, the soak, benchmarks). Linux only; elsewhere they find nothing."""

from __future__ import annotations

import os
import select
import time
from collections.abc import Iterable
from pathlib import Path


def _process_table() -> tuple[dict[int, int], dict[int, str]]:
    """Parent and name of every live process (zombies left out: they hold nothing)."""
    parents, names = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        end = stat.rindex(")")
        if stat[end + 2] == "Z":
            continue
        names[int(entry.name)] = stat[stat.index("(") + 1 : end]
        parents[int(entry.name)] = int(stat[end + 2 :].split()[1])
    return parents, names


def descendants(root: int | None = None) -> dict[int, str]:
    """Live descendants of ``root`` (this process by default), with their names."""
    parents, names = _process_table()
    top = os.getpid() if root is None else root

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == top:
                return True
        return False

    return {pid: name for pid, name in names.items() if ours(pid)}


def cmdline(pid: int) -> bytes:
    """A process's command line as the kernel holds it (b"" once it is gone). Chromium
    rewrites its children's into one space-separated string; others are NUL-separated."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def chromium_pids() -> set[int]:
    """Chromium processes descended from this process."""
    return {pid for pid, name in descendants().items() if "chrom" in name}


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
