"""Bad tool calls get a tool error naming the tool or the argument, before any browser
work: an unknown tool, a missing ``target``, a wrong type, an unknown argument."""

from __future__ import annotations

from typing import Any

import pytest

from webharness import actions as A
from webharness.mcp import EpisodeConfig, McpEpisode, ToolRunner, served_tools
from webharness.mcp.catalogue import ToolInputError
from webharness.mcp.translate import TRANSLATORS


@pytest.fixture
def runner() -> ToolRunner:
    return ToolRunner(McpEpisode(EpisodeConfig("WebEval/form-v0")), reset=True)


def error_text(runner: ToolRunner, name: str, arguments: dict) -> str:
    result = runner.call(name, arguments)
    assert result.is_error
    text = result.content[0].text
    assert text.startswith("### Error\n")
    return text


def test_an_unknown_tool_is_named(runner: ToolRunner) -> None:
    text = error_text(runner, "browser_clik", {"target": "e1"})
    assert "'browser_clik' not found" in text and "Did you mean: 'browser_click'?" in text


@pytest.mark.parametrize("tool", ["browser_click", "browser_hover", "browser_type"])
def test_a_missing_target_is_named(runner: ToolRunner, tool: str) -> None:
    text = error_text(runner, tool, {"text": "x"} if tool == "browser_type" else {})
    assert "argument 'target' is missing (or its older name 'ref')" in text


def test_a_missing_target_in_a_form_field_is_named(runner: ToolRunner) -> None:
    field = {"name": "Name", "type": "textbox", "value": "Ann"}
    text = error_text(runner, "browser_fill_form", {"fields": [field]})
    assert "argument 'target' is missing" in text


def test_a_wrong_type_is_named(runner: ToolRunner) -> None:
    text = error_text(runner, "browser_type", {"target": "e3", "text": 5})
    assert "argument 'text': 5 is not of type 'string'" in text


def test_a_missing_required_argument_is_named(runner: ToolRunner) -> None:
    assert "argument 'url' is missing" in error_text(runner, "browser_navigate", {})


def test_an_unknown_argument_is_named(runner: ToolRunner) -> None:
    assert "'selector' was unexpected" in error_text(
        runner, "browser_click", {"target": "e1", "selector": "#x"}
    )


def test_what_webharness_cannot_do_is_an_error_saying_so(runner: ToolRunner) -> None:
    two = {"target": "e1", "values": ["a", "b"]}
    assert "webharness cannot select 2 options" in error_text(runner, "browser_select_option", two)
    with pytest.raises(ToolInputError, match="'clickCount' is 1, 2 or 3, not 4"):
        TRANSLATORS["browser_mouse_click_xy"]({"x": 5, "y": 5, "clickCount": 4})


@pytest.mark.parametrize(
    "name, arguments, action",
    [
        ("browser_click", {"target": "e1", "doubleClick": True}, A.Click(ref="e1", count=2)),
        ("browser_click", {"ref": "e1", "button": "right"}, A.Click(ref="e1", button="right")),
        (
            "browser_click",
            {"target": "e1", "modifiers": ["Control", "Shift"]},
            A.Click(ref="e1", modifiers="Control+Shift"),
        ),
        (
            "browser_drag",
            {"startTarget": "e1", "endTarget": "e2", "startElement": "a", "endElement": "b"},
            A.DragAndDrop(from_ref="e1", to_ref="e2"),
        ),
        (
            "browser_drag",
            {"startRef": "e1", "endRef": "e2"},
            A.DragAndDrop(from_ref="e1", to_ref="e2"),
        ),
        ("browser_mouse_move_xy", {"x": 5, "y": 6}, A.MouseMove(x=5, y=6)),
        (
            "browser_mouse_drag_xy",
            {"startX": 1, "startY": 2, "endX": 30, "endY": 40},
            A.Drag(path=((1, 2), (30, 40))),
        ),
        (
            "browser_mouse_click_xy",
            {"x": 5, "y": 6, "button": "middle", "clickCount": 3},
            A.MouseClick(x=5, y=6, button="middle", count=3),
        ),
    ],
)
def test_the_pointer_tools_are_the_pointer_actions(
    name: str, arguments: dict[str, Any], action: A.Action
) -> None:
    assert TRANSLATORS[name](arguments) == [action]


@pytest.mark.parametrize(
    "arguments, action",
    [
        ({"paths": ["/files/a.txt", "b.txt"]}, A.Upload(paths=("/files/a.txt", "b.txt"))),
        ({}, A.Upload()),
    ],
)
def test_browser_file_upload_is_upload_and_without_paths_dismisses(
    arguments: dict[str, Any], action: A.Action
) -> None:
    assert TRANSLATORS["browser_file_upload"](arguments) == [action]


def test_a_drag_without_its_end_names_the_argument(runner: ToolRunner) -> None:
    text = error_text(runner, "browser_drag", {"startTarget": "e1"})
    assert "argument 'endTarget' is missing (or its older name 'endRef')" in text


def test_the_vision_tools_are_served_with_the_vision_capability_only() -> None:
    assert "browser_mouse_click_xy" not in served_tools(vision=False, reset=False)
    assert "browser_mouse_click_xy" in served_tools(vision=True, reset=False)
    assert "webharness_reset" not in served_tools(vision=True, reset=False)


def test_a_coordinate_tool_without_vision_names_the_option(runner: ToolRunner) -> None:
    text = error_text(runner, "browser_mouse_click_xy", {"x": 1, "y": 2})
    assert "is not served: start webharness mcp with --caps vision" in text
