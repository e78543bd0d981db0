"""The browser layer: finding and launching Chromium, the process's shared browser, the
pre-warmed pages an env takes, one page's session, and the scripts run in the page (``js/``)."""

from webharness.browser.host import BrowserHost, find_chromium
from webharness.browser.shared import keep_browser

__all__ = ["BrowserHost", "find_chromium", "keep_browser"]
