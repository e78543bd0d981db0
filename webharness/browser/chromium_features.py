"""The Chromium features the harness's browsers run with and without, beside Playwright's.

Chromium keeps only the last ``--disable-features`` (and ``--enable-features``) switch of
its command line, and Playwright's launch puts the caller's switches after its own: a
switch naming only our features would silently turn Playwright's back on (PaintHolding,
HTTPS upgrades, ...). So ours carries Playwright's list too, read from the driver's source
(the version installed). When that list cannot be read no switch is added: the browser
then runs as Playwright launches it, slower to reset but with nothing of Playwright's
dropped. A browser the harness starts itself (``cdp_pipe.py``) gets Playwright's enabled
features as well, so both launches run the same Chromium.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

# A new RenderFrameHost for every cross-document navigation (Chromium's RenderDocument)
# costs a reused page ≈14 ms a reset (form-v0: the wipe's about:blank and the start page
# each commit slower), and a capture just after a navigation may find the new frame
# without a surface yet (``capture.py``). Pages cannot tell (docs/decisions.md).
DISABLED = ("RenderDocument",)

# Where the driver has defined its switches across versions: one bundle, or a module each.
_SOURCES = ("lib/coreBundle.js", "lib/server/chromium/chromiumSwitches.js")
_NAME = re.compile(r"""["']([A-Za-z0-9_]+)["']""")
_COMMENT = re.compile(r"//[^\n]*")


def disable_features_switch() -> str | None:
    """``--disable-features=`` with Playwright's features and ours; None when Playwright's
    cannot be read (the launch then adds no such switch)."""
    theirs = playwright_features("disabled")
    if theirs is None:
        return None
    return "--disable-features=" + ",".join(dict.fromkeys((*theirs, *DISABLED)))


def enable_features_switch() -> str | None:
    """``--enable-features=`` with Playwright's features, for a launch Playwright does not
    make; None when they cannot be read."""
    theirs = playwright_features("enabled")
    return None if not theirs else "--enable-features=" + ",".join(theirs)


@functools.cache
def playwright_features(kind: str) -> tuple[str, ...] | None:
    """The features (``kind``: "disabled" or "enabled") the installed Playwright driver
    launches Chromium with; None when its source does not say."""
    from playwright._impl._driver import compute_driver_executable

    package = Path(compute_driver_executable()[1]).parent
    for source in _SOURCES:
        path = package / source
        if path.is_file():
            found = features_in(path.read_text(encoding="utf-8", errors="replace"), kind)
            if found is not None:
                return found
    return None


def features_in(source: str, kind: str) -> tuple[str, ...] | None:
    """The features of ``kind`` a driver's source defines: as an array
    (``disabledFeatures = [...]``, ``enabledFeatures = () => [...]``) or as the switch's
    literal value (``'--disable-features=A,B'``); None when it defines neither."""
    array = re.search(kind + r"Features\s*=\s*(?:\(\)\s*=>\s*)?\[(.*?)\]", source, re.DOTALL)
    if array is not None:
        return tuple(_NAME.findall(_COMMENT.sub("", array.group(1))))
    switch = "disable" if kind == "disabled" else "enable"
    literal = re.search(r"""['"]--""" + switch + r"""-features=([A-Za-z0-9_,]+)['"]""", source)
    if literal is not None:
        return tuple(name for name in literal.group(1).split(",") if name)
    return None
