"""Bad tool calls get a tool error naming the tool or the argument, before any browser
work: an unknown tool, a missing ``target``, a wrong type, an unknown argument."""

from __future__ import annotations

import pytest

from webharness.mcp import EpisodeConfig, McpEpisode, ToolRunner, served_tools


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
    drag = {"startTarget": "e1", "endTarget": "e2"}
    assert "webharness cannot drag and drop" in error_text(runner, "browser_drag", drag)
    assert "cannot double-click" in error_text(
        runner, "browser_click", {"target": "e1", "doubleClick": True}
    )


def test_the_vision_tools_are_served_with_the_vision_capability_only() -> None:
    assert "browser_mouse_click_xy" not in served_tools(vision=False, reset=False)
    assert "browser_mouse_click_xy" in served_tools(vision=True, reset=False)
    assert "webharness_reset" not in served_tools(vision=True, reset=False)
