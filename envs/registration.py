"""Register every scenario of the catalogue as ``WebEval/<name>-v0`` (data-driven)."""

from __future__ import annotations

import gymnasium as gym

from webharness.spec.catalogue import task_names

ENTRY_POINT = "webharness.envs.web_eval_env:WebEvalEnv"
NAMESPACE = "WebEval"


def env_id(task_name: str) -> str:
    return f"{NAMESPACE}/{task_name}-v0"


def register_all() -> list[str]:
    """Register each task folder once; returns the env ids. Safe to call repeatedly."""
    ids = []
    for name in task_names():
        ident = env_id(name)
        if ident not in gym.registry:
            # Our env truncates at the task's max_steps itself; no TimeLimit on top.
            gym.register(
                id=ident, entry_point=ENTRY_POINT, kwargs={"task": name}, disable_env_checker=False
            )
        ids.append(ident)
    return ids


def registered_ids() -> list[str]:
    return sorted(i for i in gym.registry if i.startswith(f"{NAMESPACE}/"))
