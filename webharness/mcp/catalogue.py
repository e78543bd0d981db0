"""The tools the server offers: Playwright MCP's, with their argument schemas, and webharness's
task tools; each call's arguments checked against its schema.

``playwright_tools.json`` holds the tools served: Playwright MCP's names and the shape of
their input schemas (argument names, types, required; from ``@playwright/mcp``, the
version ``tests/fixtures/playwright_mcp`` pins), which an agent written for it relies on;
the descriptions are webharness's own, and say what webharness does not support. Each
element argument (``target``) is also accepted under its older name (``ref``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

from webharness.errors import WebHarnessError, did_you_mean


class ToolInputError(WebHarnessError):
    """A tool call the server cannot run: an unknown tool, a bad argument, or something
    webharness cannot do; the agent gets it as a tool error (``### Error``)."""


@dataclass(frozen=True)
class ToolDef:
    """One tool: its name, description, input schema and capability (``core``, ``vision``,
    ``webharness``)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    caps: str


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _text(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


_TASK_TOOLS = (
    ToolDef(
        "webharness_task",
        "The task to do in the browser: its goal, in words.",
        _object({}, []),
        "webharness",
    ),
    ToolDef(
        "webharness_answer",
        "Give the final answer the task asks for; this ends the episode.",
        _object({"text": _text("The final answer, as the user should read it")}, ["text"]),
        "webharness",
    ),
    ToolDef(
        "webharness_ask_user",
        "Ask the user a question when the task leaves something open; their reply is the result.",
        _object({"question": _text("The question for the user")}, ["question"]),
        "webharness",
    ),
    ToolDef(
        "webharness_done",
        "Say the task is done; this ends the episode, which is judged on the page's state.",
        _object({}, []),
        "webharness",
    ),
    ToolDef(
        "webharness_report_infeasible",
        "Say the task cannot be done on this site, and why; this ends the episode.",
        _object({"reason": _text("Why the task cannot be done")}, ["reason"]),
        "webharness",
    ),
)
RESET_TOOL = ToolDef(
    "webharness_reset",
    "Start the next episode: of the same task, or of another this server plays, with a seed.",
    _object(
        {
            "task": _text("The env id of the task (default: the current one)"),
            "seed": {"type": "integer", "minimum": 0, "description": "The episode's seed"},
        },
        [],
    ),
    "webharness",
)
CDP_TOOL = ToolDef(
    "webharness_cdp_url",
    "The episode's browser over the Chrome DevTools Protocol: a WebSocket URL for "
    "Playwright's connect_over_cdp or browser-use's cdp_url. Each action taken through it is "
    "a step of the episode; each episode has a URL of its own.",
    _object({}, []),
    "webharness",
)
# Tools served only with an option of ``webharness mcp``: the option, for the error that
# names it when one is called without it.
_OPTION_OF = {CDP_TOOL.name: "--cdp"}


@cache
def playwright_tools() -> tuple[ToolDef, ...]:
    """Playwright MCP's tools this server serves, core and vision."""
    text = resources.files("webharness.mcp").joinpath("playwright_tools.json").read_text("utf-8")
    return tuple(
        ToolDef(name, entry["description"], entry["inputSchema"], entry["caps"])
        for name, entry in json.loads(text).items()
    )


def served_tools(vision: bool, reset: bool, cdp: bool = False) -> dict[str, ToolDef]:
    """The tools a server offers, by name: the core ones and the task tools, the coordinate
    ones with ``vision``, ``webharness_reset`` with ``reset``, ``webharness_cdp_url`` with
    ``cdp``."""
    tools = [t for t in playwright_tools() if t.caps == "core" or vision]
    tools += [*_TASK_TOOLS, *([RESET_TOOL] if reset else []), *([CDP_TOOL] if cdp else [])]
    return {t.name: t for t in tools}


def checked_arguments(
    tools: dict[str, ToolDef], name: str, arguments: dict[str, Any] | None
) -> dict[str, Any]:
    """``arguments`` of a call of ``name``, checked against its schema.

    Raises:
        ToolInputError: the tool is not served, or an argument is missing, unknown or of the
            wrong type; the message names the tool or the argument.
    """
    tool = tools.get(name)
    if tool is None:
        raise ToolInputError(_not_served(tools, name))
    args = dict(arguments or {})
    validator = jsonschema.Draft202012Validator(tool.input_schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(args))
    if error is not None:
        raise ToolInputError(f"Invalid arguments for tool {name!r}: {_describe(error)}")
    return args


def _not_served(tools: dict[str, ToolDef], name: str) -> str:
    """Why ``name`` cannot be called: the option that serves it, or the names it is near."""
    vision = {t.name for t in playwright_tools() if t.caps == "vision"}
    option = "--caps vision (in webharness run: mcp[vision=true])" if name in vision else None
    option = option or _OPTION_OF.get(name)
    if option is not None:
        return f"Tool {name!r} is not served: start webharness mcp with {option} to use it"
    return f"Tool {name!r} not found.{did_you_mean(name, tools)}"


def _describe(error: jsonschema.ValidationError) -> str:
    """A schema error as the argument it concerns and what to do."""
    path = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required":
        missing = str(error.message).split("'")[1]
        where = f"{path}.{missing}" if path else missing
        return f"argument {where!r} is missing"
    if error.validator == "additionalProperties":
        return f"{error.message} (at {path or 'the top level'})"
    return f"argument {path!r}: {error.message}"
