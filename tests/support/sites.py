"""Task specs over the suite's own small sites (``tests/fixtures/<name>``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
