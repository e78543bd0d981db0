"""Fidelity of our accessibility tree against Chromium's own (CDP Accessibility.getFullAXTree).

For each page of the corpus (benchmarks/axtree_corpus.py: the built-in scenarios, the
suite's own pages for shadow DOM, frames, hidden content and motion, and Shoelace, Ionic
and Fluent UI demo pages), at the start and after every step the oracle plays, Chromium's
interactive nodes (roles: chromium_axtree.INTERACTIVE; Chromium's own role names mapped
to ARIA's by chromium_axtree.CHROMIUM_ROLES) are matched to our refs through their DOM
nodes. Reported per page and in all: recall (Chromium's interactive nodes that our tree
shows with a ref), role agreement and name agreement (over the nodes shown), and every
difference.

Run: python benchmarks/bench_axtree.py [--only builtin|own|shoelace|ionic|fluent] [--json out.json]
(needs scripts/setup_components.sh for the library pages)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).parents[1]))  # tests.support: the frame's server

from axtree_corpus import Page, corpus  # noqa: E402

from tests.support.sites import FIXTURES  # noqa: E402
from tests.support.static_server import serving  # noqa: E402
from webharness.browser import chromium_axtree  # noqa: E402
from webharness.envs import WebEvalEnv  # noqa: E402
from webharness.golden.oracle import OracleAgent  # noqa: E402


def measure(page: Page, seed: int = 0) -> list[dict[str, Any]]:
    """The comparison at the start and after each step of the page's path."""
    env = WebEvalEnv(page.spec, obs_mode="text")
    rows = []
    try:
        obs, info = env.reset(seed=seed)
        oracle = OracleAgent(page.path)
        oracle.reset(info["task"], page.spec)
        rows.append(_row(env, obs, f"{page.label} @start"))
        for number in range(1, 30):
            action = oracle.act(obs, info)
            obs, _, terminated, truncated, info = env.step(action)
            if action != "done()":
                rows.append(_row(env, obs, f"{page.label} @{number} {action}"))
            if terminated or truncated:
                break
    finally:
        env.close()
    return rows


def _row(env: WebEvalEnv, obs: dict[str, Any], label: str) -> dict[str, Any]:
    session = env.episode.session
    frames = session.frames.worlds()
    compared = chromium_axtree.compare(session.cdp, session.world, obs["axtree"], frames)
    result = env.runtime.run(compared, 60)
    return {
        "page": label,
        "nodes": result.nodes,
        "shown": result.shown,
        "same_role": result.same_role,
        "same_name": result.same_name,
        **result.rates(),
        "differences": result.differences,
    }


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    nodes = sum(r["nodes"] for r in rows)
    shown = sum(r["shown"] for r in rows)
    return {
        "pages": len(rows),
        "nodes": nodes,
        "recall": shown / nodes if nodes else 1.0,
        "role": sum(r["same_role"] for r in rows) / shown if shown else 1.0,
        "name": sum(r["same_name"] for r in rows) / shown if shown else 1.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="pages whose label starts with this")
    parser.add_argument("--json", help="write every row to this file")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    with serving(FIXTURES / "modern_site", count=2) as frame_servers:
        for page in corpus(frame_servers):
            if args.only and not page.label.startswith(args.only):
                continue
            rows.extend(measure(page))
    print(f"{'page':70s} {'nodes':>5s} {'recall':>7s} {'role':>7s} {'name':>7s}")
    for row in rows:
        print(
            f"{row['page'][:70]:70s} {row['nodes']:5d} {row['recall']:7.1%} {row['role']:7.1%} "
            f"{row['name']:7.1%}"
        )
    for group in ("builtin", "own", "shoelace", "ionic", "fluent", ""):
        picked = [r for r in rows if r["page"].startswith(group)]
        if picked:
            t = totals(picked)
            print(
                f"{'total ' + (group or 'all'):20s} pages {t['pages']:3d} nodes {t['nodes']:5d} "
                f"recall {t['recall']:.2%} role {t['role']:.2%} name {t['name']:.2%}"
            )
    print("\ndifferences:")
    for row in rows:
        for difference in row["differences"]:
            print(f"  {row['page'][:60]}: {json.dumps(difference, ensure_ascii=False)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, ensure_ascii=False), "utf-8")


if __name__ == "__main__":
    main()
