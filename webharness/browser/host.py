"""Finding and running Chromium.

Playwright's sync API refuses to run inside a running asyncio loop (a Jupyter cell), so
every env owns a ``BrowserHost``: a daemon thread with its own event loop that runs the
async Playwright API. The env's synchronous methods submit coroutines to it and wait.
The same design lets a next episode's page be prepared while the agent thinks.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import os
import shutil
import threading
import weakref
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from playwright.async_api import Browser, Playwright, async_playwright

from webharness.browser.chromium_features import playwright_feature_switches
from webharness.browser.egress import EgressProxy
from webharness.browser.process_tree import kill_group, wait_for_exit
from webharness.browser.profiles import mark_profile, profile_folder, remove_left_profiles
from webharness.browser.spare_pages import SparePages
from webharness.errors import BrowserError, BrowserNotFoundError

if TYPE_CHECKING:
    from webharness.browser.cdp_mux import CdpMux

T = TypeVar("T")

BROWSER_ENV_VAR = "WEBHARNESS_CHROMIUM"
SYSTEM_CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Chromium's headless shell (the old headless mode, what Playwright itself runs headless):
# no browser UI behind each page, so a new page costs ~20 ms of browser CPU against ~130 ms
# for the full Chromium in headless mode. Preferred whenever the browser is headless.
SYSTEM_HEADLESS_SHELLS = ("chromium-headless-shell", "chrome-headless-shell")
# Launchers that run their binary as a child (no exec): launch the binary itself, so the
# process Playwright starts is the browser that a forced close must kill.
_WRAPPED_BINARIES = {
    "/usr/bin/chromium-headless-shell": "/usr/lib/chromium/chromium-headless-shell"
}
# Flags that keep a headless Chromium quiet on a closed network and as root in a container.
# No --enable-features or --disable-features: Chromium keeps only the last of each switch,
# so ours would replace Playwright's lists (which turn off HTTPS upgrades, third-party
# storage partitioning, media routing and more).
LAUNCH_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    # WebRTC sends only through the context's proxy (browser/egress.py): no direct UDP
    # (STUN), and its TCP relays go through the proxy, which checks them.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    # A frame of another site in a process of its own, as in Chrome and in the full
    # Chromium a headed env runs (the headless shell would keep it in the page's process):
    # one behaviour for both, and for frame_worlds.py, which reaches such a frame over a
    # session of its own. Pages without frames of other sites are not affected.
    "--site-per-process",
)
# Playwright's driver is a Node.js process that only relays small protocol messages; with
# V8's default young generation (16 MB semi-spaces) it holds ~20 MB more than it needs.
# V8 sizes its first old-generation limit from the heap cap (~4 GB on a big machine), so
# the driver grew for hundreds of episodes before its first full collection (PSS peak
# 143 MB over 300 episodes). Capped at 256 MB it collects early (peak 124 MB) and still
# relays a 50 MB response body; 75 MB fails with or without the cap.
DRIVER_NODE_OPTIONS = "--max-semi-space-size=2 --max-old-space-size=256"
# Launching Chromium on a loaded machine can take several seconds; this bounds it.
LAUNCH_TIMEOUT_MS = 60_000
# A graceful close (browser, then Playwright's driver) gets this long before the browser
# process is killed; a hung renderer must not hang the harness.
CLOSE_TIMEOUT_S = 10.0
# How long a killed browser's processes get to exit before its profile folder is removed.
PROFILE_RELEASE_S = 5.0
# What Playwright's transport sets on its error future when the driver process goes away.
DRIVER_GONE = "Connection closed while reading from the driver"
INSTALL_HINT = (
    "No Chromium was found. Install one of:\n"
    "  - Debian/Ubuntu: sudo apt-get install -y chromium chromium-headless-shell\n"
    "  - Playwright's build (where downloads are allowed): python -m playwright install chromium\n"
    f"  - or point {BROWSER_ENV_VAR} at a Chromium/Chrome executable."
)


def find_chromium(playwright_path: str | None = None, headless: bool = True) -> str:
    """The Chromium to launch: the env var override, Playwright's download, then the system.

    Headless, a headless shell is taken before a full Chromium at each of the last two steps.

    Args:
        playwright_path: where Playwright's own Chromium build would be (may not exist).
        headless: whether the browser will run headless (a headed one needs full Chromium).

    Raises:
        BrowserNotFoundError: with install instructions, when none is found.
    """
    override = os.environ.get(BROWSER_ENV_VAR)
    if override:
        if Path(override).is_file() and os.access(override, os.X_OK):
            return override
        raise BrowserNotFoundError(
            f"{BROWSER_ENV_VAR}={override!r} is not an executable file. "
            f"Unset it or point it at a Chromium binary.\n{INSTALL_HINT}"
        )
    if playwright_path:
        shell = _playwright_headless_shell(playwright_path) if headless else None
        for path in (shell, playwright_path):
            if path and Path(path).is_file():
                return path
    for name in (*SYSTEM_HEADLESS_SHELLS, *SYSTEM_CHROMIUMS) if headless else SYSTEM_CHROMIUMS:
        found = shutil.which(name)
        if found:
            binary = _WRAPPED_BINARIES.get(found)
            return binary if binary and os.access(binary, os.X_OK) else found
    raise BrowserNotFoundError(INSTALL_HINT)


def _playwright_headless_shell(chromium_path: str) -> str | None:
    """Playwright's headless shell download beside its Chromium of the same revision.

    ``ms-playwright/chromium-1187/...`` → ``ms-playwright/chromium_headless_shell-1187/...``.
    """
    parts = Path(chromium_path).parts
    for i, part in enumerate(parts):
        if part.startswith("chromium-") and part[len("chromium-") :].isdigit():
            shell_dir = Path(*parts[:i], "chromium_headless_shell-" + part[len("chromium-") :])
            for name in ("chrome-headless-shell", "headless_shell"):
                found = sorted(shell_dir.glob(f"*/{name}"))
                if found:
                    return str(found[0])
    return None


class BrowserHost:
    """A thread running an event loop with async Playwright and one lazily launched Chromium.

    With ``cdp``, Chromium runs on a DevTools pipe this process holds (``cdp_pipe``) and
    ``mux`` serves its protocol: Playwright connects to it as the harness, and an episode
    can open a door for an agent that drives the browser itself (``cdp_view``).
    """

    def __init__(self, headless: bool = True, cdp: bool = False) -> None:
        self.headless, self.cdp = headless, cdp
        self.mux: CdpMux | None = None  # with cdp, once launched
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._browser_pid: int | None = None  # to kill it when a graceful close hangs
        # Playwright starts the browser as the leader of a process group its renderers, GPU
        # and service processes join: the group reaches them after the browser has exited.
        self._browser_group: int | None = None
        self._profile: Path | None = None  # the profile folder Playwright made for it
        self._launching: asyncio.Lock | None = None  # made on the host's loop, on first use
        self._lock = threading.Lock()
        # The contexts' egress proxies (egress.py) run on this host's loop: closed with it,
        # whatever became of their contexts (a killed browser closes none of them).
        self.proxies: set[EgressProxy] = set()
        self.spare_pages = SparePages()  # pages closed envs left, for the next envs
        _LIVE_HOSTS.add(self)

    @property
    def mode(self) -> tuple[bool, bool]:
        """Headless, and CDP served to agents: the hosts of a mode are interchangeable."""
        return self.headless, self.cdp

    # --- running work on the browser thread ---------------------------------------------
    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run a coroutine on the browser thread and wait for its result."""
        future = self.submit(coro)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule a coroutine on the browser thread without waiting (pre-warming)."""
        loop = self._ensure_loop()
        return asyncio.run_coroutine_threadsafe(coro, loop)

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                loop.set_exception_handler(_report_loop_error)
                thread = threading.Thread(
                    target=loop.run_forever, name="webharness-browser", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    # --- the browser --------------------------------------------------------------------
    @property
    def launched(self) -> bool:
        """Whether a browser is running (the next page will not pay for a launch)."""
        return self._browser is not None and self._browser.is_connected()

    async def browser(self) -> Browser:
        """The running browser, launched on first use and relaunched if it died."""
        if self._launching is None:
            self._launching = asyncio.Lock()  # envs sharing the host may ask at once
        async with self._launching:
            return await self._connected_browser()

    async def _connected_browser(self) -> Browser:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        if self._playwright is None:
            with _driver_node_options():
                self._playwright = await async_playwright().start()
        executable = find_chromium(self._playwright.chromium.executable_path, self.headless)
        if self.cdp:
            return await self._launch_over_pipe(executable)
        try:
            self._browser = await self._playwright.chromium.launch(
                executable_path=executable,
                headless=self.headless,
                args=list(LAUNCH_ARGS),
                timeout=LAUNCH_TIMEOUT_MS,
            )
        except Exception as exc:  # Playwright raises its generic Error on launch failures
            raise BrowserError(f"could not launch Chromium at {executable}: {exc}") from exc
        pid = await _browser_pid(self._browser)
        self._browser_pid = self._browser_group = pid
        self._profile = None if pid is None else profile_folder(pid)
        if self._profile is not None and pid is not None:
            mark_profile(self._profile, pid)
            # what killed processes left beside it (the driver's temporary folder)
            await asyncio.to_thread(remove_left_profiles, self._profile.parent)
        return self._browser

    async def _launch_over_pipe(self, executable: str) -> Browser:
        """Chromium on a pipe of ours, its protocol served by ``mux``; Playwright connects."""
        from webharness.browser.cdp_mux import CdpMux  # needs the cdp extra (websockets)
        from webharness.browser.cdp_pipe import ChromiumPipe

        assert self._playwright is not None
        # Playwright's launch would have added its feature lists (chromium_features.py).
        args = [*LAUNCH_ARGS, *playwright_feature_switches()]
        pipe = ChromiumPipe(executable, args, self.headless)
        await pipe.start()
        self._browser_pid = self._browser_group = pipe.pid
        self.mux = CdpMux(pipe)
        await self.mux.start()
        try:
            self._browser = await self._playwright.chromium.connect_over_cdp(
                self.mux.open(), timeout=LAUNCH_TIMEOUT_MS
            )
        except Exception as exc:  # Playwright's generic Error
            raise BrowserError(f"could not connect to Chromium at {executable}: {exc}") from exc
        return self._browser

    def is_current(self, browser: Browser) -> bool:
        """Whether ``browser`` is the one this host runs now (not one it has replaced)."""
        return browser is self._browser

    async def _shutdown(self) -> None:
        for proxy in list(self.proxies):
            proxy.close()
        if self._browser is not None:
            try:
                await self._browser.close()
            except Exception:  # already gone: nothing left to close
                pass
            self._browser = None
        if self.mux is not None:
            await self.mux.close()
            await self.mux.pipe.close()
            self.mux = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None

    def kill(self) -> None:
        """Kill the browser and its processes at once (a hung or crashed browser).

        ``close`` still has to run to stop Playwright and the thread.
        """
        pid, self._browser_pid = self._browser_pid, None
        if pid is not None:
            kill_group(pid)

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Close the browser, stop Playwright and the thread. Safe to call twice.

        Bounded: when the graceful close takes longer than ``timeout`` seconds (a hung
        renderer, a stopped browser), the browser process is killed.
        """
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None:
            return
        graceful = asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
        try:
            graceful.result(timeout)
        except Exception:  # a dead or hung browser must not stop the loop from ending
            graceful.cancel()
            self.kill()
            try:  # the driver notices the dead browser and stops quickly now
                asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout)
            except Exception:
                pass
        self._remove_left_profile()
        self._browser_pid = None
        self._launching = None  # bound to the loop that is ending
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout)
        if thread is None or not thread.is_alive():
            loop.close()
        _LIVE_HOSTS.discard(self)

    def _remove_left_profile(self) -> None:
        """Remove the profile folder a killed driver left.

        Playwright's driver removes a browser's profile folder once the browser has
        closed; a driver killed first (SIGKILL, a crash) leaves it behind (~220 KB a
        launch). Still there after the close: the browser's processes are killed, and
        waited for, as its network and storage services write there too (one still
        shutting down wrote files after the folder was removed), then the folder.
        """
        profile, self._profile = self._profile, None
        if profile is not None and profile.exists():
            self._browser_pid = None
            if self._browser_group is not None:
                wait_for_exit(kill_group(self._browser_group), PROFILE_RELEASE_S)
            shutil.rmtree(profile, ignore_errors=True)


def _report_loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Asyncio's report of an error no one handled, less one that repeats news.

    When Playwright's driver dies (Ctrl-C reaches it as it reaches us), its transport sets an
    error on a future no one waits for once Playwright has started. Every call in flight
    or made later fails with Playwright's own error, which is where the harness handles
    it; the "never retrieved" line would only print a second, bare account at exit.
    """
    message, exception = context.get("message", ""), context.get("exception")
    if not ("never retrieved" in message and str(exception) == DRIVER_GONE):
        loop.default_exception_handler(context)


_ENVIRON_LOCK = threading.Lock()


@contextmanager
def _driver_node_options() -> Iterator[None]:
    """``DRIVER_NODE_OPTIONS`` in the environment while Playwright spawns its driver.

    Playwright copies ``os.environ``; it is put back afterwards. A user's own
    ``NODE_OPTIONS`` come after ours, so a flag they set wins.
    """
    with _ENVIRON_LOCK:
        previous = os.environ.get("NODE_OPTIONS")
        os.environ["NODE_OPTIONS"] = f"{DRIVER_NODE_OPTIONS} {previous or ''}".strip()
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop("NODE_OPTIONS", None)
            else:
                os.environ["NODE_OPTIONS"] = previous


async def _browser_pid(browser: Browser) -> int | None:
    """The browser process id, asked over CDP (Playwright does not expose it)."""
    try:
        cdp = await browser.new_browser_cdp_session()
        info = await cdp.send("SystemInfo.getProcessInfo")
        await cdp.detach()
    except Exception:  # not fatal: only the forced close needs it
        return None
    pids = [p["id"] for p in info.get("processInfo", []) if p.get("type") == "browser"]
    return int(pids[0]) if pids else None


_LIVE_HOSTS: weakref.WeakSet[BrowserHost] = weakref.WeakSet()


@atexit.register
def _close_all_hosts() -> None:
    """No Chromium outlives the interpreter, even when an env was never closed."""
    for host in list(_LIVE_HOSTS):
        host.close()
