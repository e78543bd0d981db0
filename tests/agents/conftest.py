"""Helpers for the agent tests: drive an ``Agent`` through the shared ``play`` loop."""

from __future__ import annotations

from typing import Any

from tests.support.episodes import Policy


def agent_policy(agent: Any) -> Policy:
    """A policy that resets ``agent`` whenever a new episode (task instance) starts."""
    current: dict[str, Any] = {"instance": None}

    def act(obs: dict[str, Any], info: dict[str, Any]) -> str:
        if current["instance"] is not info["task"]:
            current["instance"] = info["task"]
            agent.reset(info["task"])
        return agent.act(obs, info)

    return act
