"""``webharness mcp``: serve one task's episodes to an MCP agent, with Playwright MCP's tools."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from webharness.cli.arguments import TASKS_HELP, seed
from webharness.errors import ConfigError, WebHarnessError


def add_parsers(sub: Any) -> None:
    """The ``mcp`` command's arguments, on the ``webharness`` parser's subcommands."""
    mcp = sub.add_parser(
        "mcp", help="serve a task to an MCP agent (Playwright MCP's tools), over stdio or HTTP"
    )
    mcp.add_argument("task", nargs="?", help="its id or name (one of --tasks, if given)")
    mcp.add_argument("--tasks", help=TASKS_HELP + "; webharness_reset may switch among them")
    mcp.add_argument("--seed", type=seed, default=0, help="the first episode's seed")
    mcp.add_argument(
        "--perturbations", default="", help="a perturbation stack: 'popup,latency@0.5'"
    )
    mcp.add_argument("--obs-mode", default="both", choices=["both", "text", "pixels"])
    mcp.add_argument("--viewport", default="1280x720", help="WIDTHxHEIGHT in CSS pixels")
    mcp.add_argument("--max-steps", type=int, help="the step budget (default: the task's)")
    mcp.add_argument("--out", help="record each episode's trace in this folder")
    mcp.add_argument(
        "--upload-dir", help="the folder whose files browser_file_upload may give the page"
    )
    mcp.add_argument(
        "--caps", default="", help="'vision': also the coordinate tools (browser_mouse_*_xy)"
    )
    mcp.add_argument(
        "--cdp",
        action="store_true",
        help="also serve each episode's browser over CDP (webharness_cdp_url; webharness[cdp])",
    )
    mcp.add_argument(
        "--http", action="store_true", help="streamable HTTP on 127.0.0.1 instead of stdio"
    )
    mcp.add_argument("--port", type=int, default=0, help="the HTTP port (0: a free one)")
    mcp.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the task until the client closes (stdio) or the process is interrupted (HTTP)."""
    import anyio

    try:
        from webharness.mcp import (
            EpisodeConfig,
            EpisodeEndpoints,
            McpEpisode,
            serve_http,
            serve_stdio,
        )
    except ImportError as exc:
        raise WebHarnessError(
            f"webharness mcp needs the MCP SDK ({exc.name} is missing): "
            "pip install 'webharness[mcp]'"
        ) from None
    from webharness.runner.interrupts import RunInterrupted, terminate_raises
    from webharness.runner.task_selection import one_task, select_tasks

    if args.task is None and args.tasks is None:
        raise WebHarnessError("mcp: name the task: webharness mcp form, or --tasks ./mytask")
    env_id = one_task(args.task, args.tasks)
    caps = {c.strip() for c in args.caps.split(",") if c.strip()}
    if caps - {"vision"}:
        raise ConfigError("caps", args.caps, "the one capability webharness adds is 'vision'")
    config = EpisodeConfig(
        env_id=env_id,
        seed=args.seed,
        perturbations=args.perturbations,
        obs_mode=args.obs_mode,
        viewport=_viewport(args.viewport),
        max_steps=args.max_steps,
        trace_dir=Path(args.out) if args.out else None,
        tasks=tuple(select_tasks(args.tasks)) if args.tasks else (env_id,),
        vision="vision" in caps,
        upload_dir=_upload_dir(args.upload_dir),
        cdp=args.cdp,
    )
    if not args.http:
        anyio.run(serve_stdio, McpEpisode(config, on_door=_print_door))
        return 0
    endpoints = EpisodeEndpoints()
    endpoint = endpoints.add(config)

    def ready(port: int) -> None:
        print(f"MCP endpoint: http://127.0.0.1:{port}{endpoint.path}", file=sys.stderr, flush=True)

    try:
        with terminate_raises():  # SIGTERM closes the episodes' browsers, as Ctrl-C does
            serve_http(endpoints, args.port, ready)
    except (KeyboardInterrupt, RunInterrupted):
        pass
    except OSError as exc:  # the port is taken, or not ours to bind
        raise ConfigError("port", args.port, f"cannot listen there: {exc.strerror}") from None
    return 0


def _print_door(url: str) -> None:
    """Over stdio, each episode's CDP URL on stderr as its door opens (``--cdp``)."""
    print(f"CDP endpoint: {url}", file=sys.stderr, flush=True)


def _viewport(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0):
        raise ConfigError("viewport", text, "write it WIDTHxHEIGHT, such as 1280x720")
    return int(width), int(height)


def _upload_dir(value: str | None) -> Path | None:
    """``--upload-dir`` as an existing folder, checked before anything is served."""
    if value is not None and not Path(value).is_dir():
        raise ConfigError("upload_dir", value, "give the path of an existing folder")
    return Path(value).resolve() if value is not None else None
