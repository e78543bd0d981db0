"""A file attached over MCP, as Playwright MCP's agents attach one: ``browser_click`` on the
file input opens its chooser, ``browser_file_upload`` answers it with a file from the
server's ``--upload-dir``; a file outside that folder is a tool error naming it."""

from __future__ import annotations

from pathlib import Path

import anyio

from tests.support.mcp_clients import stdio_session

TASK = Path(__file__).resolve().parents[1] / "fixtures" / "upload_task"


def ref_of(text: str, line_start: str) -> str:
    line = next(x for x in text.splitlines() if x.lstrip("- ").startswith(line_start))
    return line.rsplit("[ref=", 1)[1].split("]", 1)[0]


def test_a_file_from_the_upload_dir_is_attached_and_the_task_passes(
    browser: None, tmp_path: Path
) -> None:
    (tmp_path / "report.txt").write_text("the quarter's figures")
    outside = tmp_path.parent / "secret.txt"
    outside.write_text("not for the page")

    async def main() -> tuple[str, str, str]:
        async with stdio_session(
            "--tasks", str(TASK), "--obs-mode", "text", "--upload-dir", str(tmp_path)
        ) as session:
            snapshot = (await session.call_tool("browser_snapshot", {})).content[0].text  # type: ignore[union-attr]
            field = ref_of(snapshot, 'button "Attach a file"')
            await session.call_tool("browser_click", {"target": field})
            refused = await session.call_tool("browser_file_upload", {"paths": [str(outside)]})
            attached = await session.call_tool("browser_file_upload", {"paths": ["report.txt"]})
            done = await session.call_tool("webharness_done", {})
            texts = (refused.content[0].text, attached.content[0].text, done.content[0].text)  # type: ignore[union-attr]
            assert refused.is_error and not attached.is_error
            return texts

    refused, attached, done = anyio.run(main)
    assert str(outside) in refused
    assert "Attached: report.txt" in attached
    assert "- Success: yes" in done
