"""webharness: Gymnasium environments for evaluating web agents in a real Chromium.

Importing the package registers every built-in scenario as ``WebEval/<name>-v0``.
"""

from webharness.action_result import ActionErrorKind, ActionResult
from webharness.actions import Action, ActionKind, ActionParseError, parse_action
from webharness.browser import find_chromium
from webharness.catalogue import get_task, task_names
from webharness.criteria import CriteriaContext, Criterion
from webharness.errors import (
    BrowserError,
    BrowserNotFoundError,
    TaskSpecError,
    UnknownTaskError,
    WebHarnessError,
)
from webharness.semantic import Element, SemanticLocator, SemanticState, StateDiff
from webharness.shared_browser import keep_browser
from webharness.task_spec import TaskSpec, load_task
from webharness.trace import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionErrorKind",
    "ActionKind",
    "ActionParseError",
    "ActionResult",
    "BrowserError",
    "BrowserNotFoundError",
    "CriteriaContext",
    "Criterion",
    "Element",
    "EpisodeEnd",
    "EpisodeTrace",
    "SemanticLocator",
    "SemanticState",
    "StateDiff",
    "StepRecord",
    "TaskInstance",
    "TaskSpec",
    "TaskSpecError",
    "UnknownTaskError",
    "WebHarnessError",
    "__version__",
    "find_chromium",
    "get_task",
    "keep_browser",
    "load_task",
    "parse_action",
    "task_names",
]


def _register() -> None:
    from webharness.envs.registration import register_all

    register_all()


_register()
