"""Playwright's Chromium feature lists, for the browser the harness starts itself.

Playwright's launch turns some Chromium features off (PaintHolding, HTTPS upgrades, ...)
and one on (CDPScreenshotNewSurface: a capture takes the next frame's surface, about a
frame sooner). A browser the harness starts on a pipe of its own (``cdp_pipe.py``, for
``--cdp``) gets the same lists, read from the installed driver's source, so both launches
run the same Chromium. They are not added to Playwright's own launch: Chromium keeps only
the last ``--disable-features`` (and ``--enable-features``) switch, so a second one would
replace Playwright's.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

# Where the driver has defined its switches across versions: one bundle, or a module each.
_SOURCES = ("lib/coreBundle.js", "lib/server/chromium/chromiumSwitches.js")
_NAME = re.compile(r"""["']([A-Za-z0-9_]+)["']""")
_COMMENT = re.compile(r"//[^\n]*")


def playwright_feature_switches() -> list[str]:
    """``--disable-features=`` and ``--enable-features=`` as Playwright's launch passes
    them (each left out when the driver's source does not say)."""
    switches = []
    for kind, switch in (("disabled", "--disable-features="), ("enabled", "--enable-features=")):
        names = playwright_features(kind)
        if names:
            switches.append(switch + ",".join(names))
    return switches


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
