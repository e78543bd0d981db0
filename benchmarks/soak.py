"""Soak: thousands of random and hostile steps across every scenario and perturbation.

Checks what an unattended evaluation relies on: no exception escapes ``step``/``reset``, no
step outlasts its bound (``env._step_timeout_s()``, plus 1 s), no Chromium is left behind,
and memory (this process + its browsers) stays flat after warm-up.

    python benchmarks/soak.py --steps 50000            # the long run
    python benchmarks/soak.py --steps 5000 --json out.json

The test suite runs a short version (``tests/reliability/test_soak.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import webharness  # noqa: E402
from webharness.agents import load_agent  # noqa: E402
from webharness.envs import WebEvalEnv  # noqa: E402
from webharness.perturbations import PERTURBATIONS  # noqa: E402
from webharness.testing.processes import chromium_pids, descendants  # noqa: E402
from webharness.wrappers import perturb  # noqa: E402

STEP_SLACK_S = 1.0  # allowed on top of the env's own step bound


@dataclass
class SoakResult:
    steps: int = 0
    resets: int = 0
    episodes_not_executable: int = 0
    not_executable: list[str] = field(
        default_factory=list
    )  # why (harness faults: hung or crashed pages)
    hostile_steps: int = 0
    escaped: list[str] = field(default_factory=list)  # exceptions out of step/reset
    slowest_step_s: float = 0.0
    step_bound_s: float = 0.0
    over_bound: list[str] = field(default_factory=list)  # steps longer than bound + slack
    step_p50_ms: float = 0.0
    step_p95_ms: float = 0.0
    chromium_before: int = 0
    chromium_peak: int = 0
    chromium_left: list[int] = field(default_factory=list)  # after closing every env
    mem_warm_mb: float = 0.0
    mem_end_mb: float = 0.0
    mem_rounds_mb: list[float] = field(default_factory=list)  # after each round from warm-up on
    # Growth from the start of the run to its end, each the median of a tenth of the rounds
    # (at least one): one sample swings ±10% with the pages that happen to be open.
    mem_growth: float = 0.0
    duration_s: float = 0.0
    played: list[tuple[str, str]] = field(default_factory=list)  # (scenario, perturbation) pairs

    @property
    def ok(self) -> bool:
        return (
            not (self.escaped or self.over_bound or self.chromium_left) and self.mem_growth < 0.15
        )


def memory_growth(samples_mb: list[float]) -> float:
    """Relative growth from the first to the last tenth of the samples (medians)."""
    if len(samples_mb) < 2:
        return 0.0
    window = max(1, len(samples_mb) // 10)
    start = float(np.median(samples_mb[:window]))
    end = float(np.median(samples_mb[-window:]))
    return round((end - start) / start, 4)


# --- processes ----------------------------------------------------------------------------
def memory_mb() -> float:
    """Memory of this process and every descendant (the browsers), in MB.

    Proportional set size (``Pss`` in ``smaps_rollup``): resident memory with each shared
    page divided among the processes sharing it. Summing plain RSS over a dozen Chromium
    processes would count their shared libraries a dozen times. Falls back to RSS.
    """
    total = 0
    for pid in [os.getpid(), *descendants()]:
        total += _memory_kb(pid)
    return total / 1024


def _memory_kb(pid: int) -> int:
    for source, key in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            for line in Path(source).read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1])
        except OSError:
            continue
    return 0


# --- hostile actions ----------------------------------------------------------------------
_HOSTILE = [
    "__import__('os').system('touch /tmp/webharness-soak-pwned')",
    "exec('1')",
    "click('e1'); import os",
    "(" * 3000 + ")" * 3000,
    "click(" + "not " * 2400 + "1)",
    "x" * 20_000,
    "",
    "\x00\ud800",
    "click(**{'ref': 'e1'})",
    "click('e999999')",
    "click('e0')",
    "click('zz')",
    "fill('e1', '" + "A" * 6000 + "')",
    "press('NotAKey')",
    "press('Control+Alt+Delete')",
    "mouse_click(-5, 99999)",
    "mouse_click(5, 5)",
    "scroll(0, 1e12)",
    "scroll(-1e9, -1e9)",
    "goto('file:///etc/passwd')",
    "goto('chrome://crash')",
    "goto('chrome://version')",
    "goto('http://127.0.0.1:9/')",
    "goto('javascript:while(1){}')",
    "goto('data:text/html,<script>while(1){}</script>')",
    "goto('about:blank')",
    "goto('/nonexistent/page')",
    "go_back()",
    "go_back()",
    "wait(600000)",
    "wait(-1)",
    "wait(0)",
    "keyboard_type('<img src=x onerror=\"document.title=1\">')",
    "keyboard_type('\\u202e\\U0001f4a9' * 50)",
    "select_option('e1', '<script>alert(1)</script>')",
    "check('e1')",
    "uncheck('e2')",
    "hover('e3')",
    "ask_user('<b>what?</b>')",
    "noop()",
]


def hostile_action(rng: np.random.Generator, obs: dict[str, Any]) -> str:
    """An adversarial action: junk, code, huge or deep strings, bad refs, escapes, nonsense."""
    roll = rng.random()
    if roll < 0.7:
        return str(rng.choice(_HOSTILE))
    refs = [
        w.strip("[]").removeprefix("ref=")
        for w in obs.get("axtree", "").split()
        if w.startswith("[ref=")
    ]
    ref = str(rng.choice(refs)) if refs else "e1"
    kind = rng.integers(4)
    if kind == 0:
        return f"fill({ref!r}, {'<script>document.title=1</script>' * int(rng.integers(1, 50))!r})"
    if kind == 1:
        return f"select_option({ref!r}, 'no such option')"
    if kind == 2:
        return f"press({ref!r}, 'Enter')"
    return f"click({ref!r}, extra=1)"


# --- the run ------------------------------------------------------------------------------
def run_soak(
    steps: int = 2_000,
    seed: int = 0,
    episode_steps: int = 16,
    hostile_rate: float = 0.35,
    warmup_rounds: int = 2,
    action_timeout_ms: float = 2_000,
    settle_cap_ms: float = 1_500,
    strength: float = 0.7,
    progress: bool = False,
    players: int = 1,
) -> SoakResult:
    """Play at least ``steps`` steps round-robin over every scenario, each episode under the
    next perturbation (or none), the random agent mixed with hostile actions, until every
    (scenario, perturbation) pair has been played.

    Each scenario has its own env, and all share the process's one browser, as in a runner
    worker. ``players`` threads split the scenarios between them, so one player's bounded
    waits (timeouts, latency, slow pages) overlap another's steps.
    """
    result = SoakResult(chromium_before=len(chromium_pids()))
    before = chromium_pids()
    names = webharness.task_names()
    stacks = ["", *PERTURBATIONS]
    bases = {
        name: WebEvalEnv(
            name, obs_mode="text", action_timeout_ms=action_timeout_ms, settle_cap_ms=settle_cap_ms
        )
        for name in names
    }
    result.step_bound_s = next(iter(bases.values()))._step_timeout_s()
    durations: list[float] = []
    combos: set[tuple[str, str]] = set()
    lock, done = threading.Lock(), threading.Event()
    started = time.monotonic()

    def play(player: int) -> None:
        try:
            play_rounds(player)
        except Exception as exc:  # noqa: BLE001  (a harness fault outside step/reset)
            with lock:
                result.escaped.append(f"player {player}: {type(exc).__name__}: {exc}"[:300])
            done.set()

    def play_rounds(player: int) -> None:
        rng = np.random.default_rng([seed, player])
        agent = load_agent("random", seed=seed + player, done_prob=0.02)
        for round_no in range(1, 10 * steps):
            for name in names[player::players]:
                stack = stacks[(round_no + names.index(name)) % len(stacks)]
                outcome = _episode(
                    bases[name],
                    stack,
                    strength,
                    agent,
                    rng,
                    episode_steps,
                    hostile_rate,
                    result.step_bound_s,
                )
                with lock:
                    combos.add((name, stack))
                    _merge(result, durations, outcome)
                    result.chromium_peak = max(result.chromium_peak, len(chromium_pids() - before))
                    if result.steps >= steps and len(combos) == len(names) * len(stacks):
                        done.set()
                if done.is_set():
                    return
            if player == 0 and round_no >= warmup_rounds:
                result.mem_rounds_mb.append(round(memory_mb(), 1))
            if player == 0 and progress:
                print(
                    f"round {round_no}: {result.steps} steps, {time.monotonic() - started:.0f} s, "
                    f"memory {memory_mb():.0f} MB, chromium {len(chromium_pids() - before)}",
                    file=sys.stderr,
                )

    try:
        threads = [
            threading.Thread(target=play, args=(i,), name=f"soak-{i}") for i in range(players)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        result.mem_end_mb = memory_mb()
    finally:
        for base in bases.values():
            base.close()
    result.duration_s = round(time.monotonic() - started, 1)
    result.chromium_left = sorted(chromium_pids() - before)
    result.played = sorted(combos)
    result.mem_warm_mb = result.mem_rounds_mb[0] if result.mem_rounds_mb else 0.0
    result.mem_growth = memory_growth(result.mem_rounds_mb + [result.mem_end_mb])
    if durations:
        result.step_p50_ms = round(float(np.percentile(durations, 50)) * 1000, 1)
        result.step_p95_ms = round(float(np.percentile(durations, 95)) * 1000, 1)
        result.slowest_step_s = round(max(durations), 2)
    return result


@dataclass
class EpisodeOutcome:
    """What one soak episode saw, merged into the result under the lock."""

    reset: bool = False
    durations: list[float] = field(default_factory=list)
    hostile_steps: int = 0
    escaped: list[str] = field(default_factory=list)
    over_bound: list[str] = field(default_factory=list)
    not_executable: list[str] = field(default_factory=list)


def _merge(result: SoakResult, durations: list[float], outcome: EpisodeOutcome) -> None:
    result.resets += outcome.reset
    result.steps += len(outcome.durations)
    durations.extend(outcome.durations)
    result.hostile_steps += outcome.hostile_steps
    result.escaped += outcome.escaped
    result.over_bound += outcome.over_bound
    result.episodes_not_executable += len(outcome.not_executable)
    result.not_executable += outcome.not_executable


def _episode(
    base: WebEvalEnv,
    stack: str,
    strength: float,
    agent: Any,
    rng: np.random.Generator,
    episode_steps: int,
    hostile_rate: float,
    step_bound_s: float,
) -> EpisodeOutcome:
    outcome = EpisodeOutcome()
    base.hook_factories.clear()  # the previous episode's perturbation wrappers
    env = perturb(base, stack, strength) if stack else base
    try:
        obs, info = env.reset(seed=int(rng.integers(1_000)))
    except Exception as exc:  # noqa: BLE001  (that is what the soak looks for)
        outcome.escaped.append(
            f"reset {base.task_spec.id} [{stack}]: {type(exc).__name__}: {exc}"[:300]
        )
        return outcome
    outcome.reset = True
    agent.reset(info["task"])
    for _ in range(episode_steps):
        hostile = rng.random() < hostile_rate
        action = hostile_action(rng, obs) if hostile else agent.act(obs, info)
        began = time.monotonic()
        try:
            obs, _, terminated, truncated, info = env.step(action)
        except Exception as exc:  # noqa: BLE001
            outcome.escaped.append(
                f"step {base.task_spec.id} [{stack}] {action[:80]!r}: {type(exc).__name__}: {exc}"[
                    :300
                ]
            )
            return outcome
        elapsed = time.monotonic() - began
        outcome.durations.append(elapsed)
        outcome.hostile_steps += hostile
        if elapsed > step_bound_s + STEP_SLACK_S:
            outcome.over_bound.append(
                f"{base.task_spec.id} [{stack}] {action[:80]!r}: {elapsed:.1f} s"
            )
        if terminated or truncated:
            end = info.get("episode_end")
            if end is not None and end.not_executable:
                outcome.not_executable.append(
                    f"{base.task_spec.id} [{stack}] {action[:80]!r} after {elapsed:.1f} s: "
                    f"{end.error}"[:300]
                )
            return outcome
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episode-steps", type=int, default=16)
    parser.add_argument("--hostile-rate", type=float, default=0.35)
    parser.add_argument("--action-timeout-ms", type=float, default=2_000)
    parser.add_argument("--settle-cap-ms", type=float, default=1_500)
    parser.add_argument(
        "--players", type=int, default=1, help="threads sharing the scenarios (overlap their waits)"
    )
    parser.add_argument("--json", help="write the result here")
    args = parser.parse_args()
    result = run_soak(
        args.steps,
        args.seed,
        args.episode_steps,
        args.hostile_rate,
        action_timeout_ms=args.action_timeout_ms,
        settle_cap_ms=args.settle_cap_ms,
        progress=True,
        players=args.players,
    )
    report = {
        **asdict(result),
        "ok": result.ok,
        "cpus": os.cpu_count(),
        "load_avg": os.getloadavg(),
    }
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
