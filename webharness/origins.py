"""A URL's origin (``scheme://host[:port]``), as the harness compares origins.

It decides what a task may reach, what a perturbation touches, and which frames are
another origin's.
"""

from __future__ import annotations

from urllib.parse import urlsplit


def origin_of(url: str) -> str:
    """``http://example.test:8080`` of ``http://example.test:8080/a/b?c``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
