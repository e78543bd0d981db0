"""Chromium on a DevTools pipe held by this process, for episodes that hand an agent CDP.

Playwright's own launch keeps the pipe in its driver, and a ``--remote-debugging-port``
would let any local process take the whole browser (it has no authentication). So for
these episodes webharness starts Chromium itself with ``--remote-debugging-pipe`` (file
descriptors 3 and 4, NUL-separated JSON messages) and serves the protocol from that pipe
to its clients (``cdp_mux``): Playwright for the harness, and the agent, each on a path
with an unguessable token.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import tempfile
from collections.abc import Callable
from typing import Any

from webharness.browser.process_tree import kill_group, wait_for_exit
from webharness.errors import BrowserError

# What Playwright's launch adds that matters to an episode (its `chromiumSwitches`), beside
# the host's own LAUNCH_ARGS: no throttling of background pages and timers, no bfcache,
# popups let through to the harness's own refusal, a fixed colour profile.
PIPE_ARGS = (
    "--disable-field-trial-config",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-back-forward-cache",
    "--disable-breakpad",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--allow-pre-commit-input",
    "--force-color-profile=srgb",
    "--metrics-recording-only",
    "--no-default-browser-check",
    "--no-service-autorun",
    "--password-store=basic",
    "--use-mock-keychain",
    "--hide-scrollbars",
    "--mute-audio",
)
EXIT_WAIT_S = 10.0

Listener = Callable[[dict[str, Any]], None]


class ChromiumPipe:
    """One Chromium started with ``--remote-debugging-pipe``; ``send`` and ``listener``
    carry the protocol's messages. Its process group is its own; ``close`` ends it.

    Args:
        executable: the Chromium binary.
        args: its switches (``--remote-debugging-pipe`` and the profile are added).
        headless: add ``--headless`` (not needed by the headless shell, harmless there).
    """

    def __init__(self, executable: str, args: list[str], headless: bool = True) -> None:
        self.executable, self.args, self.headless = executable, args, headless
        self.pid: int | None = None
        self.profile = tempfile.mkdtemp(prefix="webharness-cdp-profile-")
        self.listener: Listener = lambda message: None
        self._writer: asyncio.WriteTransport | None = None
        self._buffer = bytearray()
        self.closed = asyncio.Event()

    async def start(self) -> None:
        """Start Chromium and read its messages on the running loop.

        Raises:
            BrowserError: it cannot be started.
        """
        to_browser, ours_out = os.pipe()  # Chromium reads fd 3
        ours_in, from_browser = os.pipe()  # Chromium writes fd 4
        argv = [self.executable, *self.args, *PIPE_ARGS]
        argv += [f"--user-data-dir={self.profile}", "--remote-debugging-pipe"]
        argv += ["--headless", "--no-startup-window"] if self.headless else ["--no-startup-window"]
        null = os.open(os.devnull, os.O_RDWR)
        actions = [
            (os.POSIX_SPAWN_DUP2, to_browser, 3),
            (os.POSIX_SPAWN_DUP2, from_browser, 4),
            (os.POSIX_SPAWN_DUP2, null, 0),
            (os.POSIX_SPAWN_DUP2, null, 1),
            (os.POSIX_SPAWN_DUP2, null, 2),
        ]
        try:
            self.pid = os.posix_spawn(
                self.executable, argv, dict(os.environ), file_actions=actions, setsid=True
            )
        except OSError as exc:
            raise BrowserError(f"could not start Chromium at {self.executable}: {exc}") from exc
        finally:
            for fd in (to_browser, from_browser, null):
                os.close(fd)
        loop = asyncio.get_running_loop()
        self._writer, _ = await loop.connect_write_pipe(
            asyncio.Protocol, os.fdopen(ours_out, "wb", buffering=0)
        )
        await loop.connect_read_pipe(
            lambda: _Reader(self._received, self.closed), os.fdopen(ours_in, "rb", buffering=0)
        )

    def send(self, message: dict[str, Any]) -> None:
        """Write one message to the browser."""
        if self._writer is None or self._writer.is_closing():
            raise BrowserError("the browser's DevTools pipe is closed")
        self._writer.write(json.dumps(message).encode() + b"\0")

    def _received(self, data: bytes) -> None:
        self._buffer += data
        while (end := self._buffer.find(b"\0")) >= 0:
            raw, self._buffer = bytes(self._buffer[:end]), self._buffer[end + 1 :]
            self.listener(json.loads(raw))

    async def close(self) -> None:
        """Close the browser (``Browser.close``, then the group killed) and its profile."""
        if self.pid is not None:
            try:
                self.send({"id": 0, "method": "Browser.close"})
                await asyncio.wait_for(self.closed.wait(), 5)
            except (BrowserError, TimeoutError):
                pass
            pid, self.pid = self.pid, None
            await asyncio.to_thread(_end, pid)
        if self._writer is not None:
            self._writer.close()
        shutil.rmtree(self.profile, ignore_errors=True)


class _Reader(asyncio.Protocol):
    def __init__(self, received: Callable[[bytes], None], closed: asyncio.Event) -> None:
        self.received, self.closed = received, closed

    def data_received(self, data: bytes) -> None:
        self.received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()


def _end(pid: int) -> None:
    """Kill what is left of the browser's group and reap the browser."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    if not wait_for_exit([pid], 3):
        wait_for_exit(kill_group(pid), EXIT_WAIT_S)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
