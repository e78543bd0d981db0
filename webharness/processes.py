"""The processes this one started, read from ``/proc``: for checks that no Chromium is
left behind (tests, the soak, benchmarks). Linux only; elsewhere they find nothing."""

from __future__ import annotations

import os
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
        names[int(entry.name)] = stat[stat.index("(") + 1:end]
        parents[int(entry.name)] = int(stat[end + 2:].split()[1])
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
