"""Tool results laid out as Playwright MCP writes them: markdown sections (``### Result``,
``### Error``, ``### Page``, ``### Snapshot``, ...) in one text block, with no blank line
between them, and screenshots as image content. ``### Episode`` is webharness's own: the
outcome, once the episode has ended."""

from __future__ import annotations

import base64
import io
from typing import Any

import mcp_types as types
import numpy as np
from PIL import Image

from webharness.mcp.episodes import StepResult


def section(title: str, body: str) -> str:
    """One section: its ``### title`` line and its body."""
    return f"### {title}\n{body}" if body else f"### {title}"


def page_sections(result: StepResult) -> list[str]:
    """``### Page`` (URL and title) and ``### Snapshot`` (the accessibility tree, as YAML)."""
    state = result.info["semantic_state"]
    page = f"- Page URL: {state.url}\n- Page Title: {state.title}"
    tree = str(result.obs.get("axtree", "")).rstrip("\n")
    return [section("Page", page), section("Snapshot", f"```yaml\n{tree}\n```")]


def episode_section(result: StepResult, can_reset: bool) -> str:
    """``### Episode``: how the episode ended, its success and its diagnosis, and what
    comes next (``webharness_reset``, where the server offers it)."""
    info = result.info
    end = info.get("episode_end")
    lines = [f"- Ended: {end.ended_by.value if end is not None else 'yes'} at step {info['step']}"]
    lines.append(f"- Success: {'yes' if info['success'] else 'no'}")
    failure = info.get("failure")
    if failure is not None and not failure.passed:
        stage = failure.stage.value if failure.stage is not None else "unknown"
        code = failure.code.value if failure.code is not None else "unknown"
        lines.append(f"- Failure: {code} at step {failure.step} (stage: {stage})")
        if failure.message:
            lines.append(f"- Diagnosis: {failure.message}")
    lines.append(
        "- Next: webharness_reset starts another episode"
        if can_reset
        else "- Next: nothing; the episode is over and the agent may exit"
    )
    return section("Episode", "\n".join(lines))


def outcome_fields(result: StepResult) -> dict[str, Any]:
    """The outcome as structured data (success, failure code, step, stage)."""
    failure = result.info.get("failure")
    return {
        "ended": result.ended,
        "success": bool(result.info["success"]),
        "step": result.info["step"],
        "failure_code": failure.code.value if failure is not None and failure.code else None,
        "failure_step": failure.step if failure is not None else None,
        "failure_stage": failure.stage.value if failure is not None and failure.stage else None,
    }


def text_result(sections: list[str], error: bool = False) -> types.CallToolResult:
    """A tool result of one text block made of ``sections``."""
    text = "\n".join(s for s in sections if s)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


def error_result(message: str) -> types.CallToolResult:
    """A tool error: ``### Error`` and the message."""
    return text_result([section("Error", message)], error=True)


def png_content(pixels: np.ndarray) -> types.ImageContent:
    """A screenshot as MCP image content (PNG, base64)."""
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(buffer, format="PNG")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return types.ImageContent(type="image", data=data, mime_type="image/png")
