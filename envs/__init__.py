"""Gymnasium environments of webharness, installed as ``webharness.envs``.

The env class and the registration of every task as ``<Namespace>/<name>-v0``.

``WebEvalEnv`` loads on first use: registering the tasks (which ``import webharness`` does)
needs no browser.
"""

from typing import TYPE_CHECKING

from webharness import _lazy
from webharness.envs.registration import env_id, register_all, register_tasks, registered_ids

if TYPE_CHECKING:
    from webharness.envs.web_eval_env import WebEvalEnv

__all__ = ["WebEvalEnv", "env_id", "register_all", "register_tasks", "registered_ids"]

__getattr__, __dir__ = _lazy.lazy_names(__name__, {"webharness.envs.web_eval_env": ["WebEvalEnv"]})
