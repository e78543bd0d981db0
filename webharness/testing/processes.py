"""The processes this one started: for checks that no Chromium is left behind (tests, the
soak, benchmarks). Linux only; elsewhere they find nothing."""

from __future__ import annotations

from webharness.browser.process_tree import cmdline, descendants, wait_for_exit

__all__ = ["chromium_pids", "cmdline", "descendants", "wait_for_exit"]


def chromium_pids() -> set[int]:
    """Chromium processes descended from this process."""
    return {pid for pid, name in descendants().items() if "chrom" in name}
