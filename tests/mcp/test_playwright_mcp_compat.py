"""``webharness mcp`` against the real Playwright MCP (``@playwright/mcp``, pinned in
tests/fixtures/playwright_mcp, installed by scripts/setup_playwright_mcp.sh): one client
script drives both servers over the same page (the notes task's site: theirs from
127.0.0.1, ours as the task folder) and checks that every core tool of theirs is ours with
every argument it declares, and that the same calls give the same sections and the same
``### Snapshot`` line format."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.support.mcp_clients import stdio_session, text_of
from tests.support.static_server import serving
from webharness import find_chromium

FIXTURES = Path(__file__).parents[1] / "fixtures"
THEIRS = FIXTURES / "playwright_mcp" / "node_modules" / ".bin" / "playwright-mcp"
NOTES = FIXTURES / "notes_task"
CORE = (
    "browser_snapshot browser_click browser_type browser_fill_form browser_select_option "
    "browser_press_key browser_hover browser_drag browser_navigate browser_navigate_back "
    "browser_wait_for browser_take_screenshot browser_handle_dialog browser_tabs browser_close "
    "browser_file_upload"
).split()
VISION = "browser_mouse_click_xy browser_mouse_move_xy browser_mouse_drag_xy browser_mouse_wheel"
# One line of an aria snapshot: indentation, "- ", a role (or /url, text), an optional
# quoted name, [attributes], the ref, and an optional ": value" or ":" for children.
LINE = re.compile(
    r'^(  )*- (/?[a-z]+)( "(?:[^"\\]|\\.)*")?( \[[a-z]+(=[^\]]+)?\])*( \[ref=e\d+\])?(:( .+)?)?$'
)
# Elements both pages show the same way (our tree keeps the form and the options' refs,
# theirs a root "generic" and the labels as "generic"; see docs/mcp.md).
SHARED = ('heading "Notebook"', 'textbox "Note"', 'button "Add note"', 'heading "Notes"')

pytestmark = pytest.mark.slow


@asynccontextmanager
async def their_session(output_dir: Path) -> AsyncIterator[ClientSession]:
    if not THEIRS.exists():
        pytest.fail("@playwright/mcp is not installed: run scripts/setup_playwright_mcp.sh")
    args = ["--headless", "--isolated", "--no-sandbox", "--caps", "vision"]
    args += ["--executable-path", str(find_chromium()), "--output-dir", str(output_dir)]
    params = StdioServerParameters(command=str(THEIRS), args=args, cwd=str(output_dir))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def sections(text: str) -> list[str]:
    return re.findall(r"^### (.+)$", text, flags=re.M)


def snapshot_lines(text: str) -> list[str]:
    """The lines of the ``### Snapshot`` section's YAML block."""
    block = text.split("### Snapshot\n```yaml\n", 1)[1].split("\n```", 1)[0]
    return block.splitlines()


def ref_of(text: str, element: str) -> str:
    """The ref of the first snapshot line showing ``element`` (role and name)."""
    found = re.search(re.escape(element) + r".*?\[ref=(e\d+)\]", text)
    assert found, f"{element} is not in the snapshot:\n{text}"
    return found.group(1)


def shape(line: str) -> str:
    """A snapshot line without its indentation and its ref's number."""
    return re.sub(r"\[ref=e\d+\]", "[ref=eN]", line.strip())


def as_theirs(line: str) -> str:
    """Our line in their form where a difference is known and documented (docs/mcp.md):
    our tree names a list item by its text (``listitem "X" [ref=e5]``), theirs gives the
    text as its value (``listitem [ref=e5]: "X"``), as ARIA names list items from
    authors only."""
    return re.sub(r'^- listitem (".*") (\[ref=eN\])$', r"- listitem \2: \1", line)


async def play(session: ClientSession, navigate_to: str | None) -> dict[str, Any]:
    """The same calls on one server: its tools, and each call's text."""
    tools = {t.name: t for t in (await session.list_tools()).tools}
    texts: dict[str, str] = {}
    if navigate_to is not None:
        await session.call_tool("browser_navigate", {"url": navigate_to})
    texts["snapshot"] = text_of(await session.call_tool("browser_snapshot", {}))
    note = ref_of(texts["snapshot"], 'textbox "Note"')
    texts["type"] = text_of(
        await session.call_tool("browser_type", {"target": note, "text": "Buy milk"})
    )
    lists = ref_of(texts["snapshot"], 'combobox "List"')
    await session.call_tool("browser_select_option", {"target": lists, "values": ["Home"]})
    add = ref_of(texts["snapshot"], 'button "Add note"')
    texts["click"] = text_of(
        await session.call_tool("browser_click", {"target": add, "element": "Add note"})
    )
    texts["after"] = text_of(await session.call_tool("browser_snapshot", {}))
    texts["tabs"] = text_of(await session.call_tool("browser_tabs", {"action": "list"}))
    texts["unknown_ref"] = text_of(await session.call_tool("browser_click", {"target": "e999"}))
    return {"tools": tools, "texts": texts}


@pytest.fixture(scope="module")
def both(browser: None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    output = tmp_path_factory.mktemp("playwright_mcp")

    async def main() -> dict[str, Any]:
        with serving(NOTES / "site") as (origin,):
            async with their_session(output) as theirs:
                their = await play(theirs, f"{origin}/index.html")
        args = ("--tasks", str(NOTES), "--obs-mode", "text", "--caps", "vision")
        async with stdio_session(*args) as ours:
            our = await play(ours, None)
        return {"theirs": their, "ours": our}

    return anyio.run(main)


def test_every_core_and_vision_tool_of_theirs_is_ours(both: dict[str, Any]) -> None:
    theirs, ours = both["theirs"]["tools"], both["ours"]["tools"]
    assert [n for n in [*CORE, *VISION.split()] if n in theirs and n not in ours] == []
    assert set(CORE) <= set(theirs)  # the list above is still theirs


@pytest.mark.parametrize("name", [*CORE, *VISION.split()])
def test_every_argument_they_declare_is_ours_with_its_type(both: dict[str, Any], name: str) -> None:
    their = both["theirs"]["tools"][name].input_schema
    our = both["ours"]["tools"][name].input_schema
    for key, spec in their["properties"].items():
        assert key in our["properties"], f"{name}: {key} is not accepted"
        mine = our["properties"][key]
        assert (mine.get("type"), mine.get("enum")) == (spec.get("type"), spec.get("enum")), key
        if spec.get("type") == "array":
            assert (
                mine["items"].get("properties", {}).keys()
                >= spec["items"].get("properties", {}).keys()
            ), key
    # What we require, they require too (an element by target, or by its older name ref).
    assert set(our.get("required", [])) <= set(their.get("required", []))


def test_the_snapshot_has_their_sections_and_line_format(both: dict[str, Any]) -> None:
    theirs, ours = both["theirs"]["texts"], both["ours"]["texts"]
    for call in ("snapshot", "after"):
        assert sections(ours[call]) == sections(theirs[call]) == ["Page", "Snapshot"]
        for text in (theirs[call], ours[call]):
            assert [line for line in snapshot_lines(text) if not LINE.match(line)] == []
            assert re.search(r"^- Page URL: \S+\n- Page Title: Notebook$", text, flags=re.M)
    for element in SHARED:
        their_line = next(line for line in snapshot_lines(theirs["snapshot"]) if element in line)
        our_line = next(line for line in snapshot_lines(ours["snapshot"]) if element in line)
        assert shape(our_line) == shape(their_line)


def test_the_same_calls_give_the_same_page_state(both: dict[str, Any]) -> None:
    theirs, ours = both["theirs"]["texts"], both["ours"]["texts"]
    added = [shape(line) for line in snapshot_lines(theirs["after"]) if "Home: Buy milk" in line]
    mine = [as_theirs(shape(line)) for line in snapshot_lines(ours["after"]) if "Buy milk" in line]
    assert added and added == mine
    # An action: their sections other than the code they ran are ours, in their order (they
    # leave the page out after a call that did not change it; ours always shows it).
    for call in ("type", "click"):
        their_sections = [s for s in sections(theirs[call]) if s != "Ran Playwright code"]
        assert sections(ours[call]) == ["Result", "Page", "Snapshot"]
        assert their_sections == [s for s in sections(ours[call]) if s in their_sections]
    assert sections(theirs["click"]) == ["Ran Playwright code", "Page", "Snapshot"]
    assert re.fullmatch(r"### Result\n- 0: \(current\) \[Notebook\]\(\S+\)", theirs["tabs"])
    assert re.fullmatch(r"### Result\n- 0: \(current\) \[Notebook\]\(\S+\)", ours["tabs"])
    assert sections(theirs["unknown_ref"])[0] == sections(ours["unknown_ref"])[0] == "Error"
