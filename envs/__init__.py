"""Gymnasium environments of webharness (installed as ``webharness.envs``)."""

from webharness.envs.registration import env_id, register_all, register_tasks, registered_ids
from webharness.envs.web_eval_env import WebEvalEnv

__all__ = ["WebEvalEnv", "env_id", "register_all", "register_tasks", "registered_ids"]
