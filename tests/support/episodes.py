"""Playing an episode in a test: a policy loop, the oracle as a policy, and the checks of
a golden path's expects."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
from gymnasium.utils import seeding

from webharness.golden.oracle import OracleAgent, golden_paths
from webharness.spec.catalogue import get_task
from webharness.spec.criteria import CriteriaContext
from webharness.spec.task_spec import TaskSpec, instantiate


@dataclass
class EpisodeRun:
    """What a played episode produced, for assertions."""

    actions: list[str] = field(default_factory=list)
    infos: list[dict[str, Any]] = field(default_factory=list)
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False

    @property
    def last(self) -> dict[str, Any]:
        return self.infos[-1]

    @property
    def success(self) -> bool:
        return bool(self.last["success"]) and self.reward == 1.0


Policy = Callable[[dict[str, Any], dict[str, Any]], str]


def play(env: gym.Env, policy: Policy, seed: int, max_steps: int = 60) -> EpisodeRun:
    """Reset with ``seed`` and step ``policy`` until the episode ends."""
    obs, info = env.reset(seed=seed)
    run = EpisodeRun(infos=[info])
    for _ in range(max_steps):
        action = policy(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        run.actions.append(action)
        run.infos.append(info)
        run.reward, run.terminated, run.truncated = reward, terminated, truncated
        if terminated or truncated:
            break
    return run


def agent_policy(agent: Any, *reset_with: Any) -> Policy:
    """A policy that resets ``agent`` whenever a new episode (task instance) starts (with
    the task instance, then ``reset_with``)."""
    current: dict[str, Any] = {"instance": None}

    def act(obs: dict[str, Any], info: dict[str, Any]) -> str:
        if current["instance"] is not info["task"]:
            current["instance"] = info["task"]
            agent.reset(info["task"], *reset_with)
        return agent.act(obs, info)

    return act


def oracle_policy(env: gym.Env, path_id: str | None = None, spec: TaskSpec | None = None) -> Policy:
    """A policy that plays a golden path (of ``spec``, a task outside the catalogue, when
    given); resets itself on each new episode."""
    return agent_policy(OracleAgent(path_id), *([spec] if spec is not None else []))


def _played_steps(
    actions: list[str], infos: list[dict[str, Any]], steps: list[Any]
) -> list[tuple[Any, dict[str, Any]]]:
    """Pair each golden step with the info after the oracle played it (its waits for a
    target not yet on the page are not steps)."""
    acted = [info for action, info in zip(actions, infos) if not action.startswith("wait(")]
    if len(acted) != len(steps):
        raise AssertionError(
            f"the oracle played {len(acted)} actions for {len(steps)} golden steps: {actions}"
        )
    return list(zip(steps, acted))


def unmet_expects(run: EpisodeRun, path_id: str) -> list[tuple[int | None, str, Any]]:
    """The golden steps whose ``expect`` did not hold right after the oracle played them."""
    instance = run.infos[0]["task"]
    path = next(p for p in golden_paths(get_task(instance.task_id), instance) if p.id == path_id)
    unmet = []
    for step, info in _played_steps(run.actions, run.infos[1:], path.steps):
        answer = str(step.value) if step.action.value == "send_msg_to_user" else None
        if step.expect is not None and not step.expect.holds(
            CriteriaContext(info["semantic_state"], final_answer=answer)
        ):
            unmet.append((instance.seed, f"{step.action.value} {step.target}", step.expect))
    return unmet


def check_expects(run: EpisodeRun, path_id: str) -> None:
    """Each golden step's ``expect`` holds right after the oracle played that step."""
    assert unmet_expects(run, path_id) == []


def golden_failures(env: gym.Env, path_id: str, seeds: Any) -> list[Any]:
    """Play golden path ``path_id`` on each seed; what failed: unmet expects, no success."""
    failures: list[Any] = []
    for seed in seeds:
        run = play(env, oracle_policy(env, path_id), seed)
        failures.extend(unmet_expects(run, path_id))
        if not run.success:
            failures.append((seed, "the episode did not succeed", run.actions))
    return failures


ORACLE_SEEDS = range(20)  # the oracle succeeds on seeds 0-19 of every scenario


def oracle_seeds(env_id: str, path_id: str) -> list[int]:
    """The seeds of 0-19 that golden path ``path_id`` plays: a scenario's paths take turns,
    so each seed is played once per scenario and each path on every n-th seed."""
    paths = [p.id for p in get_task(env_id).golden_paths]
    return [seed for seed in ORACLE_SEEDS if seed % len(paths) == paths.index(path_id)]


def step(env: gym.Env, action: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """One step; its observation and info."""
    obs, _, _, _, info = env.step(action)
    return obs, info


def ref_of(info: dict[str, Any], role: str, name: str) -> str:
    """The ref of the first element with ``role`` and ``name`` in the step's semantic state
    (the test fails naming what there is when none has them)."""
    found = info["semantic_state"].find(role, name)
    shown = [(e.role, e.name) for e in info["semantic_state"].elements]
    assert found, f"no {role} {name!r} in {shown}"
    return str(found[0].ref)


def instance_params(task: str, seed: int) -> dict[str, Any]:
    """The parameters of the built-in ``task``'s instance for ``seed``, as ``reset`` draws them."""
    return instantiate(get_task(task), seed, seeding.np_random(seed)[0]).instance.params


def distinct(values: Iterable[Any], enough: int) -> int:
    """How many distinct values there are, counting up to ``enough``: values past the point
    where that many were seen are not made."""
    seen: set[Any] = set()
    for value in values:
        seen.add(value)
        if len(seen) >= enough:
            break
    return len(seen)
