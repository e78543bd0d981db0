"""Processes read from /proc: waiting for them to end, woken by their exits (pidfds),
within a bound; killing a browser's process group, also after its leader has exited."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from webharness.browser.process_tree import kill_group, wait_for_exit


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


# A group leader that starts two children in its group, prints their pids, and exits
# (its children live on, as a browser's renderers and services outlive it for a moment).
_LEADER_THAT_LEAVES = """
import subprocess, sys
until_killed = [sys.executable, "-c", "import signal; signal.pause()"]
children = [subprocess.Popen(until_killed) for _ in range(2)]
print(*[c.pid for c in children], flush=True)
"""


def test_kill_group_reaches_the_members_of_a_group_whose_leader_has_exited():
    leader = subprocess.Popen(
        [sys.executable, "-c", _LEADER_THAT_LEAVES],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, as Playwright starts a browser
    )
    with leader:  # closes its pipe
        assert leader.stdout is not None
        members = {int(pid) for pid in leader.stdout.readline().split()}
    try:
        assert all(os.getpgid(pid) == leader.pid for pid in members)
        assert kill_group(leader.pid) == members
        assert wait_for_exit(members, 30) is True
    finally:
        for pid in members:  # the test's own clean-up, had kill_group missed them
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_kill_group_kills_only_the_process_where_it_leads_no_group():
    child = _until_stdin_closes()  # in the test's own group
    with child:
        assert kill_group(child.pid) == {child.pid}
        assert child.wait(30) == -signal.SIGKILL
    assert kill_group(child.pid) == set()  # gone: nothing to kill


@pytest.mark.parametrize("leader", [0, 1, -5])
def test_kill_group_refuses_this_process_s_own_group_and_init(leader):
    with pytest.raises(ValueError, match=str(leader)):
        kill_group(leader)
