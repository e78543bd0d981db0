"""What an agent's CDP connection may see and do: its episode's browser context, nothing else.

An agent connected to the episode (``cdp_mux``) sees the targets of the episode's browser
context only (its page, the page's frames and workers), never another episode's context
or a page of the harness's own. Commands that would escape the episode are refused
with a CDP error that names the method:

- another browser context, a target outside the episode's, ``Target.*`` on a foreign target;
- ``Browser.*`` process control (close, crash, permissions, browser commands);
- request interception (``Fetch.*``, ``Network.setRequestInterception``), which could
  answer or reroute the page's requests past the task's rules;
- downloads allowed to a folder (``Browser.setDownloadBehavior``, ``Page.setDownloadBehavior``);
- ``Page.navigate`` to an origin the task does not allow, and a new page
  (``Target.createTarget``): as for any agent, an episode has one page, and the harness
  closes new windows.

Everything the agent's pages request still goes through the context's egress proxy, which
checks and records it as for any episode. A command without a browser context, as a
client connected to a whole browser sends for its default context (Playwright's
``connect_over_cdp``), is pointed at the episode's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Refused wherever they are sent, with why.
REFUSED = {
    "Target.createBrowserContext": "an episode has one browser context, its own",
    "Target.disposeBrowserContext": "the episode's browser context is the harness's to close",
    "Target.attachToBrowserTarget": "the connection is already the episode's browser session",
    "Target.exposeDevToolsProtocol": "it would hand a page the whole protocol",
    "Target.setRemoteLocations": "the episode's targets are all here",
    # The harness closes every page but the episode's (new windows are refused and
    # recorded), so a page opened here would be closed under the agent: refused at once.
    "Target.createTarget": "an episode has one page (new windows are refused): navigate it",
    "Browser.close": "the browser is the harness's: end the episode instead",
    "Browser.crash": "the browser is the harness's",
    "Browser.crashGpuProcess": "the browser is the harness's",
    "Browser.executeBrowserCommand": "the browser is the harness's",
    "Browser.grantPermissions": "the task's permissions are fixed by the harness",
    "Browser.setPermission": "the task's permissions are fixed by the harness",
    "Browser.resetPermissions": "the task's permissions are fixed by the harness",
    "Network.setRequestInterception": "the page's requests follow the task's rules",
    "Page.crash": "the episode's page is the harness's to keep",
    # The viewport is the task's: a resized page lays out anew, and its states and
    # screenshots would no longer be the golden paths'.
    "Emulation.setDeviceMetricsOverride": "the episode's viewport is the task's",
    "Emulation.setVisibleSize": "the episode's viewport is the task's",
    "Browser.setWindowBounds": "the episode's viewport is the task's",
    "Tethering.bind": "the episode reaches no port of this machine",
}
_TARGET_METHODS = frozenset(
    {
        "Target.attachToTarget",
        "Target.activateTarget",
        "Target.closeTarget",
        "Target.getTargetInfo",
        "Target.autoAttachRelated",
        "Browser.getWindowForTarget",
    }
)
_CONTEXT_METHODS = ("Storage.", "Browser.setDownloadBehavior", "Target.getTargets")


class Refused(Exception):
    """A command the agent may not send: the CDP error's message."""


@dataclass(frozen=True)
class Answer:
    """A command answered here, without the browser."""

    result: dict[str, Any]


@dataclass
class EpisodeView:
    """An agent's view of the browser: the episode's context.

    Args:
        context_id: the episode's ``browserContextId``.
        allows_url: whether the task lets a page go to a URL (its allowed origins).
        contexts: the browser context of each target the connection knows of, by target id
            (the mux keeps it from the browser's events).
    """

    context_id: str
    allows_url: Callable[[str], bool]
    contexts: dict[str, str] = field(default_factory=dict)

    def owns(self, target_id: str) -> bool:
        """Whether the target is the episode's."""
        return self.contexts.get(target_id) == self.context_id

    def check(self, method: str, params: dict[str, Any], at_root: bool) -> dict[str, Any] | Answer:
        """The params to send, or an answer given here.

        Raises:
            Refused: the command would leave the episode.
        """
        if method in REFUSED:
            raise Refused(f"webharness refuses {method}: {REFUSED[method]}")
        if method.startswith("Fetch."):
            raise Refused(
                f"webharness refuses {method}: the page's requests follow the task's rules"
            )
        target = params.get("targetId")  # none: the session's own target
        if method in _TARGET_METHODS and target is not None and not self.owns(str(target)):
            raise Refused(
                f"webharness refuses {method}: no target {params.get('targetId')!r} in this episode"
            )
        if method == "Target.getBrowserContexts":
            return Answer({"browserContextIds": [self.context_id]})
        if method in ("Page.navigate",) and not self._allowed(str(params.get("url", ""))):
            raise Refused(
                f"webharness refuses {method}: the task does not allow {params.get('url')!r}"
            )
        if method.endswith("setDownloadBehavior"):
            return self._downloads(method, params)
        if at_root and method.startswith(_CONTEXT_METHODS):
            return self._in_context(method, params)
        return params

    def result(self, method: str, result: dict[str, Any]) -> dict[str, Any]:
        """The browser's answer as the agent may see it."""
        if method == "Target.getTargets":
            infos = [t for t in result.get("targetInfos", []) if self._knows(t)]
            return {**result, "targetInfos": infos}
        return result

    def shows(self, method: str, params: dict[str, Any]) -> bool:
        """Whether a browser-level event may reach the agent."""
        info = params.get("targetInfo")
        if isinstance(info, dict):
            return self._knows(info)
        if "targetId" in params:
            return self.owns(str(params["targetId"]))
        return "browserContextId" not in params or params["browserContextId"] == self.context_id

    def _knows(self, info: dict[str, Any]) -> bool:
        return info.get("browserContextId") == self.context_id

    def _allowed(self, url: str) -> bool:
        return url in ("", "about:blank") or self.allows_url(url)

    def _downloads(self, method: str, params: dict[str, Any]) -> dict[str, Any] | Answer:
        """Downloads stay refused. Asking to deny them is done; asking to allow them for the
        episode is refused; for a whole browser's default context (Playwright asks this as
        it connects) it is acknowledged and changes nothing the episode has."""
        if params.get("behavior") in ("deny", "default"):
            return (
                {**params, "browserContextId": self.context_id} if "Browser" in method else params
            )
        if method.startswith("Browser.") and "browserContextId" not in params:
            return Answer({})
        raise Refused(f"webharness refuses {method}: the episode's downloads stay refused")

    def _in_context(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        context = params.get("browserContextId", self.context_id)
        if context != self.context_id:
            raise Refused(
                f"webharness refuses {method}: browser context {context!r} is not this episode's"
            )
        if method == "Target.getTargets":
            return params
        return {**params, "browserContextId": self.context_id}
