"""One Chromium per process, shared by every env in it.

A browser costs a Playwright driver, a Chromium launch (~0.5 s of CPU) and ~250 MB, while an
episode only needs a fresh, isolated *context*. So every env's runtime leases its process's
``BrowserHost`` (one per headless mode); the last lease to go closes it, so no Chromium
outlives its envs. ``keep_browser()`` holds the browser open between envs for code that
makes envs one after another (a benchmark loop, a notebook, a test module).

The registry is guarded by a lock (envs may live on several threads) and belongs to the
process that made it: a forked child starts with an empty one, as its parent's browser
thread does not exist in the child.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from webharness.browser.host import BrowserHost

Mode = tuple[bool, bool]  # headless, cdp


class _Registry:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pid = os.getpid()
        self.current: dict[Mode, BrowserHost] = {}  # mode -> the host new leases get
        self.users: dict[BrowserHost, int] = {}  # leases per host, current or replaced
        self.keepers: dict[Mode, int] = {}  # keep_browser() blocks open per mode

    def check_process(self) -> None:
        if self.pid != os.getpid():  # forked: the parent's hosts are not ours to use
            self.__init__()  # type: ignore[misc]

    def idle(self, host: BrowserHost) -> bool:
        """No lease holds ``host`` and nothing keeps it (call with the lock held)."""
        if self.users.get(host, 0) > 0:
            return False
        if self.current.get(host.mode) is host and self.keepers.get(host.mode, 0) > 0:
            return False
        self.users.pop(host, None)
        if self.current.get(host.mode) is host:
            del self.current[host.mode]
        return True


_REGISTRY = _Registry()


def lease_host(headless: bool = True, cdp: bool = False) -> BrowserHost:
    """The process's host for this mode, counted as one more user (launched lazily).

    ``cdp``: a browser whose protocol the host serves to agents (``BrowserHost``'s ``cdp``).
    """
    mode = (headless, cdp)
    with _REGISTRY.lock:
        _REGISTRY.check_process()
        host = _REGISTRY.current.get(mode)
        if host is None:
            host = _REGISTRY.current[mode] = BrowserHost(headless, cdp)
        _REGISTRY.users[host] = _REGISTRY.users.get(host, 0) + 1
        return host


def release_host(host: BrowserHost) -> None:
    """One user fewer; the last one out closes the host (bounded)."""
    with _REGISTRY.lock:
        _REGISTRY.check_process()
        _REGISTRY.users[host] = _REGISTRY.users.get(host, 1) - 1
        idle = _REGISTRY.idle(host)
    if idle:
        host.close()


def replace_host(host: BrowserHost, kill: bool) -> tuple[BrowserHost, bool]:
    """Trade a lease on a failed host for one on a working host.

    ``kill``: the caller saw this host's current browser fail (crashed or hung), so it is
    killed and new leases get a fresh host. A caller whose failure came from a browser that
    has since been replaced passes False and simply moves on, so one crash does not make
    every env of the process kill the browser the others already restarted.

    Returns the new host and whether the old one is now unused (the caller closes it, in
    the background: its driver may be slow to notice the dead browser).
    """
    with _REGISTRY.lock:
        _REGISTRY.check_process()
        current = _REGISTRY.current.get(host.mode)
        if current is None or (kill and current is host):
            if kill:
                host.kill()
            current = _REGISTRY.current[host.mode] = BrowserHost(*host.mode)
        _REGISTRY.users[current] = _REGISTRY.users.get(current, 0) + 1
        _REGISTRY.users[host] = _REGISTRY.users.get(host, 1) - 1
        old_idle = current is not host and _REGISTRY.idle(host)
    return current, old_idle


@contextmanager
def keep_browser(headless: bool = True, cdp: bool = False) -> Iterator[None]:
    """Keep the process's browser running between envs made inside the block.

    Without it, closing the last env closes Chromium, and the next env launches it again
    (~0.5 s of CPU each time). The browser is still launched lazily, on the first reset.

    Example (it launches Chromium, so the doctest run skips it; the tests cover it):
        >>> import gymnasium as gym, webharness
        >>> with webharness.keep_browser():  # doctest: +SKIP
        ...     for name in webharness.task_names():
        ...         env = gym.make(f"WebEval/{name}-v0", obs_mode="text")
        ...         _ = env.reset(seed=0)
        ...         env.close()  # the browser stays for the next env
    """
    mode = (headless, cdp)
    with _REGISTRY.lock:
        _REGISTRY.check_process()
        _REGISTRY.keepers[mode] = _REGISTRY.keepers.get(mode, 0) + 1
    try:
        yield
    finally:
        with _REGISTRY.lock:
            _REGISTRY.keepers[mode] -= 1
            host = _REGISTRY.current.get(mode)
            idle = host is not None and _REGISTRY.idle(host)
        if idle and host is not None:
            host.close()


def users_of(host: BrowserHost) -> int:
    """How many leases hold ``host`` (for tests and diagnostics)."""
    with _REGISTRY.lock:
        return _REGISTRY.users.get(host, 0)


__all__ = ["keep_browser", "lease_host", "release_host", "replace_host", "users_of"]
