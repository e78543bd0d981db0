"""MiniWoB++ tasks that are not registered, each with the reason (``docs/miniwob.md``
lists the same; a test checks both against what is registered)."""

from __future__ import annotations

NOT_REGISTERED: dict[str, str] = {}
