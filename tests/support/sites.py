"""Task specs over the suite's own small sites (``tests/fixtures/<name>``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from webharness.spec.task_spec import TaskSpec

FIXTURES = Path(__file__).parents[1] / "fixtures"


def site_spec(site: str, success: dict[str, Any] | None = None, **fields: Any) -> TaskSpec:
    """A test task served from ``tests/fixtures/<site>``, judged on ``success`` (by default
    a text that is never shown: the test looks at the env, not at the outcome)."""
    return TaskSpec.model_validate(
        {
            "id": site.removesuffix("_site"),
            "category": "test",
            "instruction": f"Use the {site} page.",
            "site": str(FIXTURES / site),
            "success": success or {"kind": "text", "text": "never shown"},
            **fields,
        }
    )


# Where a page with a frame of another origin (modern_site/other_origin.html, its payment
# form served from 127.0.0.1) comes from: our own origin, which makes the frame another
# site's (Chromium renders it out of the page's process), or 127.0.0.1 on another port,
# which makes it the same site's (rendered in the page's process).
FRAME_ARRANGEMENTS = ("another-site", "same-site")


def other_origin_frame_spec(
    arrangement: str,
    page_origin: str,
    frame_origin: str,
    nested: str = "",
    frame_page: str = "payment_frame.html",
    below_the_fold: bool = False,
    **fields: Any,
) -> TaskSpec:
    """The payment page in ``arrangement``: its frame (``frame_page``) from ``frame_origin``
    (allowed), the page itself from our origin or from ``page_origin`` (a server of
    modern_site too); ``nested``: the URL of a frame in the payment frame (none by default);
    ``below_the_fold``: the frame 3000 px down the page."""
    payment = f"{frame_origin}/{frame_page}" + (f"#{quote(nested, safe='')}" if nested else "")
    query = "?below" if below_the_fold else ""
    page = f"/other_origin.html{query}#" + quote(payment, safe="")
    spec = site_spec("modern_site", start_page=page, allowed_origins=[frame_origin], **fields)
    if arrangement == "same-site":  # the page is an external site's
        spec = spec.model_copy(update={"site": None, "start_url": page_origin + page})
    return spec
