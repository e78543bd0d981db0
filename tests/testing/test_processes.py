"""Waiting for processes to end, woken by their exits (pidfds), within a bound."""

from __future__ import annotations

import subprocess
import sys

from webharness.testing.processes import wait_for_exit


def _until_stdin_closes() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )


def test_wait_for_exit_returns_when_every_process_has_ended():
    children = [_until_stdin_closes(), _until_stdin_closes()]
    try:
        assert wait_for_exit([c.pid for c in children], 0.2) is False  # both still running
        children[0].stdin.close()
        assert wait_for_exit([c.pid for c in children], 0.2) is False  # one still running
        children[1].stdin.close()
        assert wait_for_exit([c.pid for c in children], 30) is True  # zombies until reaped: ended
    finally:
        for child in children:
            child.kill()
            child.wait()


def test_a_process_already_gone_counts_as_ended():
    child = _until_stdin_closes()
    child.stdin.close()
    child.wait()  # reaped: its pid names nothing now
    assert wait_for_exit([child.pid], 1) is True
    assert wait_for_exit([], 1) is True
