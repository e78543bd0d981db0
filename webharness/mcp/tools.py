"""Running one tool call on the episode: observations (snapshot, screenshot, tabs, the goal)
without a step, every other call as env steps through the executor, each result laid out
as Playwright MCP lays out its own."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from webharness.action_result import ActionErrorKind
from webharness.actions import Action
from webharness.errors import WebHarnessError
from webharness.mcp.catalogue import ToolInputError, checked_arguments, served_tools
from webharness.mcp.episodes import EpisodeEndedError, ServedEpisode, StepResult
from webharness.mcp.responses import (
    episode_section,
    error_result,
    outcome_fields,
    page_sections,
    png_content,
    section,
    text_result,
)
from webharness.mcp.translate import TRANSLATORS, cannot

# Errors about the element an action named: the message starts with the argument.
_ELEMENT_ERRORS = frozenset(
    {
        ActionErrorKind.UNKNOWN_REF,
        ActionErrorKind.STALE_REF,
        ActionErrorKind.NOT_VISIBLE,
        ActionErrorKind.NOT_INTERACTABLE,
        ActionErrorKind.UNSUPPORTED_CONTROL,
    }
)


class ToolRunner:
    """The tools of one MCP endpoint over its episode.

    Args:
        episode: the episode the calls play.
        reset: offer ``webharness_reset`` (stdio, where one process plays many episodes).
    """

    def __init__(self, episode: ServedEpisode, reset: bool) -> None:
        self.episode = episode
        self.tools = served_tools(episode.vision, reset, episode.cdp)

    @property
    def _can_reset(self) -> bool:
        return "webharness_reset" in self.tools

    def list_tools(self) -> list[types.Tool]:
        """The tools, with their descriptions and input schemas."""
        return [
            types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
            for t in self.tools.values()
        ]

    def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Run one call; anything the agent got wrong comes back as a tool error."""
        try:
            return self._run(name, checked_arguments(self.tools, name, arguments))
        except EpisodeEndedError as exc:
            return text_result(
                [section("Error", str(exc)), episode_section(self.episode.last, self._can_reset)],
                error=True,
            )
        except WebHarnessError as exc:  # ToolInputError, a task webharness_reset cannot play
            return error_result(str(exc))

    def _run(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        observe = _OBSERVATIONS.get(name)
        if observe is not None:
            return observe(self, args)
        names_text = args.get("text") or args.get("textGone")
        if (
            name == "browser_wait_for"
            and names_text
            and _text_condition_holds(self.episode.last, args)
        ):
            return self._page([section("Result", "The condition already holds on the page")])
        return self._steps(name, args, TRANSLATORS[name](args))

    def _steps(
        self, name: str, args: dict[str, Any], actions: list[Action]
    ) -> types.CallToolResult:
        result = self.episode.last
        for action in actions:
            result = self.episode.step(action)
            outcome = result.info["action_result"]
            if not outcome.ok:
                message = outcome.message
                if outcome.error in _ELEMENT_ERRORS and action.ref_target is not None:
                    message = f"target {action.ref_target!r}: {message}"
                return self._page([section("Error", message)], result, error=True)
            if result.ended:
                break
        if name == "browser_wait_for" and not _text_condition_holds(result, args):
            wanted = args.get("text") or args.get("textGone")
            problem = f"the text {wanted!r} did not {'appear' if args.get('text') else 'go'}"
            return self._page([section("Error", problem)], result, error=True)
        return self._page([section("Result", _result_text(name, result))], result)

    def _page(
        self, head: list[str], result: StepResult | None = None, error: bool = False
    ) -> types.CallToolResult:
        """``head``, then the page and its snapshot, then the outcome once the episode ended."""
        result = result or self.episode.last
        sections = [*head, *page_sections(result)]
        if result.ended:
            sections.append(episode_section(result, self._can_reset))
        reply = text_result(sections, error=error)
        if result.ended:
            reply.structured_content = outcome_fields(result)
        return reply

    # --- observations (no step) -----------------------------------------------------------
    def _snapshot(self, args: dict[str, Any]) -> types.CallToolResult:
        for option in ("target", "filename", "depth", "boxes"):
            if args.get(option) is not None:
                raise cannot(f"take a snapshot with {option!r} (the whole page's is served)")
        return self._page([])

    def _screenshot(self, args: dict[str, Any]) -> types.CallToolResult:
        for option in ("target", "ref", "filename", "fullPage"):
            if args.get(option):
                raise cannot(f"take a screenshot with {option!r} (the viewport's is served)")
        if args.get("type", "png") != "png":
            raise cannot(f"encode a screenshot as {args['type']!r} (it serves png)")
        shot = png_content(self.episode.screenshot())
        text = types.TextContent(type="text", text=section("Result", "- Screenshot of viewport"))
        return types.CallToolResult(content=[text, shot])

    def _tabs(self, args: dict[str, Any]) -> types.CallToolResult:
        if args["action"] != "list":
            raise cannot(f"{args['action']} tabs: an episode has one page")
        state = self.episode.last.info["semantic_state"]
        return text_result([section("Result", f"- 0: (current) [{state.title}]({state.url})")])

    def _close(self, args: dict[str, Any]) -> types.CallToolResult:
        note = (
            "webharness keeps the episode's page open: end the episode with webharness_done, "
            "webharness_answer or webharness_report_infeasible"
        )
        return text_result([section("Result", note)])

    def _dialog(self, args: dict[str, Any]) -> types.CallToolResult:
        raise ToolInputError(
            "No dialog visible: webharness pages show their dialogs in the page (see the "
            "snapshot; use browser_click), and the browser dismisses native ones itself"
        )

    def _task(self, args: dict[str, Any]) -> types.CallToolResult:
        return text_result([section("Result", self.episode.goal)])

    def _cdp_url(self, args: dict[str, Any]) -> types.CallToolResult:
        url = self.episode.cdp_url()
        reply = text_result([section("Result", url)])
        reply.structured_content = {"cdp_url": url}
        return reply

    def _reset(self, args: dict[str, Any]) -> types.CallToolResult:
        result = self.episode.reset(args.get("task"), args.get("seed"))
        task = result.info["task"]
        started = f"- Task: {task.env_id}\n- Seed: {task.seed}\n- Goal: {task.instruction}"
        return self._page([section("Result", started)], result)


def _text_condition_holds(result: StepResult, args: dict[str, Any]) -> bool:
    """Whether ``browser_wait_for``'s text is on the page (``text``) or gone (``textGone``);
    True when it names no text."""
    state = result.info["semantic_state"]
    page = f"{state.text}\n{result.obs.get('axtree', '')}"
    if args.get("text") and args["text"] not in page:
        return False
    return not (args.get("textGone") and args["textGone"] in page)


def _result_text(name: str, result: StepResult) -> str:
    """The ``### Result`` of a step: the user's reply to a question, else what was done."""
    if name == "webharness_ask_user":
        replies = result.obs.get("user_messages") or []
        return str(replies[-1]) if replies else "The user did not answer"
    if result.ended:
        return "The episode has ended"
    return f"Done ({name})"


_OBSERVATIONS = {
    "browser_snapshot": ToolRunner._snapshot,
    "browser_take_screenshot": ToolRunner._screenshot,
    "browser_tabs": ToolRunner._tabs,
    "browser_close": ToolRunner._close,
    "browser_handle_dialog": ToolRunner._dialog,
    "webharness_task": ToolRunner._task,
    "webharness_cdp_url": ToolRunner._cdp_url,
    "webharness_reset": ToolRunner._reset,
}
