"""``webharness run`` and ``webharness evaluate``: agents over tasks, seeds and perturbation
stacks, written to a run folder with its report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from webharness.cli.arguments import TASKS_HELP, csv
from webharness.errors import ConfigError
from webharness.runner import RunConfig, RunFolder
from webharness.runner.seeds import parse_seeds
from webharness.runner.splits import SPLIT_HELP, parse_split, split_seeds
from webharness.trace.frames import DEFAULT_FRAMES

RUN_SEEDS = "0-2"  # webharness run's seeds without --seeds or a seed split


def add_parsers(sub: Any) -> None:
    """The ``run`` and ``evaluate`` commands, on the ``webharness`` parser's subcommands."""
    run = sub.add_parser("run", help="evaluate agents over tasks and seeds")
    run.add_argument(
        "--agents",
        default="oracle",
        help="comma-separated: oracle,heuristic,random,llm or module:Class, each with its own "
        "options in brackets if wanted: 'oracle,llm[model=a],llm[model=b,temperature=0.2]'",
    )
    run.add_argument(
        "--agent-option",
        action="append",
        metavar="KEY=VALUE",
        help="an option for every agent that takes it (repeatable), e.g. model=gpt-4o-mini; "
        "values are YAML scalars (0.2, true); an agent's own [options] win",
    )
    run.add_argument(
        "--llm-proxy",
        metavar="UPSTREAM_URL",
        help="count an external agent's LLM tokens: its OPENAI_BASE_URL is pointed at a local "
        "proxy that forwards every request unchanged to this OpenAI-compatible URL",
    )
    run.add_argument(
        "--prices",
        metavar="FILE",
        help="YAML/JSON: model -> {prompt: USD, completion: USD} per million tokens, for costs",
    )
    run.add_argument("--tasks", default="WebEval/*", help=TASKS_HELP)
    run.add_argument(
        "--seeds",
        help=f"a range 0-4 or a list 0,3,7 (default: the seeds of the splits, else {RUN_SEEDS})",
    )
    run.add_argument("--split", action="append", metavar="NAME=SPEC", help=SPLIT_HELP)
    run.add_argument(
        "--perturbations",
        default="",
        help="';'-separated stacks, '' for clean: ';popup,latency@0.5'",
    )
    run.add_argument("--trials", type=int, default=1)
    run.add_argument("--workers", type=int, default=1)
    run.add_argument("--backend", choices=["local", "ray"], default="local")
    run.add_argument("--address", help="Ray cluster address (backend ray)")
    run.add_argument("--obs-mode", default="both", choices=["both", "text", "pixels"])
    run.add_argument(
        "--no-screenshots", action="store_true", help="keep no screenshots in the traces"
    )
    run.add_argument(
        "--frames",
        default=DEFAULT_FRAMES,
        help="how the agent's screenshots are kept: FORMAT[:QUALITY], webp, jpeg or png",
    )
    run.add_argument(
        "--keep-frames",
        default="all",
        choices=["all", "around-failure"],
        help="around-failure: keep only the first, last, failure and divergence steps' frames",
    )
    run.add_argument(
        "--golden-cache",
        metavar="DIR",
        help="the golden-trace cache shared by runs (default: $WEBHARNESS_CACHE_DIR or "
        "~/.cache/webharness/golden); see webharness cache",
    )
    run.add_argument(
        "--no-golden-cache", action="store_true", help="record golden traces in the run only"
    )
    run.add_argument(
        "--log-prompts", action="store_true", help="store LLM prompts and replies in the traces"
    )
    run.add_argument(
        "--playwright-trace",
        action="store_true",
        help="keep Playwright's trace.zip in each episode folder (playwright show-trace trace.zip)",
    )
    run.add_argument("--out", default="runs/latest")
    run.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out, skipping finished episodes",
    )
    run.set_defaults(func=_cmd_run)

    evaluate = sub.add_parser(
        "evaluate", help="the main job: built-in agents over every scenario, clean and perturbed"
    )
    evaluate.add_argument("--seeds", default="0-1")
    evaluate.add_argument("--perturbation", default="popup,latency@0.5", help="the perturbed stack")
    evaluate.add_argument("--workers", type=int, default=2)
    evaluate.add_argument("--out", default="runs/evaluation")
    evaluate.add_argument("--resume", action="store_true")
    evaluate.set_defaults(func=_cmd_evaluate)


def run_config(args: argparse.Namespace) -> RunConfig:
    from webharness.agents.specs import AgentSpecError, split_agent_specs

    try:
        agents = split_agent_specs(args.agents)
    except AgentSpecError as exc:
        raise ConfigError("agents", args.agents, str(exc)) from None
    splits = [parse_split(text) for text in args.split or []]
    seeds = parse_seeds(args.seeds) if args.seeds is not None else split_seeds(splits)
    return RunConfig.checked(
        agents=agents,
        agent_options=_agent_options(args.agent_option or [], args.llm_proxy),
        prices=_prices(args.prices),
        tasks=csv(args.tasks),
        seeds=seeds or parse_seeds(RUN_SEEDS),
        splits=splits,
        perturbations=[p.strip() for p in args.perturbations.split(";")],
        trials=args.trials,
        workers=args.workers,
        backend=args.backend,
        ray_address=args.address,
        obs_mode=args.obs_mode,
        screenshots=not args.no_screenshots,
        frames=args.frames,
        keep_frames=args.keep_frames.replace("-", "_"),
        **_golden_cache(args),
        log_prompts=args.log_prompts,
        playwright_trace=args.playwright_trace,
    )


def _golden_cache(args: argparse.Namespace) -> dict[str, str | None]:
    """``--golden-cache DIR``, none with ``--no-golden-cache``, else the config's default."""
    if args.no_golden_cache and args.golden_cache:
        raise ConfigError(
            "golden_cache", args.golden_cache, "--no-golden-cache says not to use one; give one"
        )
    if args.no_golden_cache:
        return {"golden_cache": None}
    return {"golden_cache": args.golden_cache} if args.golden_cache else {}


def _agent_options(written: list[str], llm_proxy: str | None = None) -> dict[str, object]:
    """``--agent-option KEY=VALUE``, each value read as a YAML scalar; a key once. With
    ``--llm-proxy``, ``llm_proxy``, which the external agents take."""
    from webharness.agents.specs import AgentSpecError, parse_option

    options: dict[str, object] = {}
    for text in written:
        try:
            key, value = parse_option(text)
        except AgentSpecError as exc:
            raise ConfigError("agent_option", text, str(exc)) from None
        if key in options:
            raise ConfigError("agent_option", text, f"{key!r} is given twice; give it once")
        options[key] = value
    if llm_proxy is not None:
        if "llm_proxy" in options:
            raise ConfigError("llm_proxy", llm_proxy, "also given as --agent-option; give it once")
        options["llm_proxy"] = llm_proxy
    return options


def _prices(path: str | None) -> dict[str, object]:
    """The ``--prices`` file's table (none without the option)."""
    from webharness.reporting.costs import PriceError, load_prices

    if path is None:
        return {}
    try:
        return dict(load_prices(path))
    except PriceError as exc:
        raise ConfigError("prices", path, str(exc)) from None


def _execute_run(config: RunConfig, run_dir: Path, resume: bool, argv: Sequence[str]) -> int:
    from webharness.reporting.render import format_summary_table
    from webharness.reporting.summary import summarize
    from webharness.runner import expand_jobs, prepare_run, report_run, run_jobs
    from webharness.runner.interrupts import (
        RunInterrupted,
        exit_code,
        resume_command,
        terminate_raises,
    )
    from webharness.runner.progress_bar import Progress

    jobs = prepare_run(config, run_dir, resume)
    grid = len(expand_jobs(config, run_dir))
    print(f"run folder: {run_dir}  episodes to run: {len(jobs)} of {grid}", file=sys.stderr)
    folder = RunFolder(run_dir)
    try:
        with terminate_raises(), Progress(grid, done=grid - len(jobs)) as progress:
            run_jobs(jobs, config, run_dir, on_result=progress.update)
    except (KeyboardInterrupt, RunInterrupted) as exc:
        kept = len(folder.done_keys())
        print(
            f"webharness: interrupted; {kept} of {grid} episodes are kept in {folder.results}; "
            f"continue with: {resume_command(argv)}",
            file=sys.stderr,
        )
        return exit_code(exc)
    attempts = folder.read_attempts()
    paths = report_run(run_dir)
    print(format_summary_table(summarize(attempts, folder.price_table())))
    print(f"report: {paths['html'].resolve()}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    """Evaluate agents over tasks, seeds and perturbation stacks; write results and a report."""
    return _execute_run(run_config(args), Path(args.out), args.resume, args.argv)


def _cmd_evaluate(args: argparse.Namespace) -> int:
    """The main job: the built-in agents over every scenario, clean and perturbed."""
    config = RunConfig.checked(
        agents=["oracle", "heuristic", "random"],
        tasks=["WebEval/*"],
        seeds=parse_seeds(args.seeds),
        perturbations=["", args.perturbation],
        workers=args.workers,
    )
    return _execute_run(config, Path(args.out), args.resume, args.argv)
