"""webharness: Gymnasium environments for evaluating web agents in a real Chromium.

Importing the package registers every built-in scenario as ``WebEval/<name>-v0``, and the
task folders of installed task packs (entry-point group ``webharness.tasks``);
``register_tasks(folder, namespace)`` registers a folder of your own.
"""

from typing import TYPE_CHECKING

from webharness import _lazy
from webharness.action_result import ActionErrorKind, ActionResult
from webharness.actions import Action, ActionKind, ActionParseError, parse_action
from webharness.diagnosis.alignment import Alignment, align
from webharness.diagnosis.failures import (
    FailureCode,
    FailureReport,
    Stage,
    annotate,
)
from webharness.diagnosis.scoring import EpisodeScore, score_trace
from webharness.errors import (
    BrowserError,
    BrowserNotFoundError,
    SetupError,
    TaskFolderError,
    TaskSpecError,
    UnknownTaskError,
    WebHarnessError,
)
from webharness.semantic import Element, SemanticLocator, SemanticState, StateDiff
from webharness.spec.catalogue import get_task, task_names
from webharness.spec.criteria import CriteriaContext, Criterion
from webharness.spec.task_spec import TaskSpec, load_task
from webharness.trace.io import load_trace
from webharness.trace.models import EndedBy, EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

if TYPE_CHECKING:
    from webharness.browser.host import find_chromium
    from webharness.browser.shared import keep_browser
    from webharness.cdp.door import attach, play_attached
    from webharness.envs.registration import register_tasks

__version__ = "0.3.0"

__all__ = [
    "Action",
    "ActionErrorKind",
    "ActionKind",
    "ActionParseError",
    "ActionResult",
    "Alignment",
    "BrowserError",
    "BrowserNotFoundError",
    "CriteriaContext",
    "Criterion",
    "Element",
    "EndedBy",
    "EpisodeEnd",
    "EpisodeScore",
    "EpisodeTrace",
    "FailureReport",
    "FailureCode",
    "Stage",
    "SemanticLocator",
    "SemanticState",
    "SetupError",
    "StateDiff",
    "StepRecord",
    "TaskFolderError",
    "TaskInstance",
    "TaskSpec",
    "TaskSpecError",
    "UnknownTaskError",
    "WebHarnessError",
    "__version__",
    "align",
    "annotate",
    "attach",
    "find_chromium",
    "get_task",
    "keep_browser",
    "load_task",
    "load_trace",
    "parse_action",
    "play_attached",
    "register_tasks",
    "score_trace",
    "task_names",
]

# Their modules load Playwright (the envs package holds WebEvalEnv): they load on first use,
# so that ``import webharness.agents.specs`` and the offline layers stay light.
__getattr__, __dir__ = _lazy.lazy_names(
    __name__,
    {
        "webharness.browser.host": ["find_chromium"],
        "webharness.browser.shared": ["keep_browser"],
        "webharness.envs.registration": ["register_tasks"],
        "webharness.cdp.door": ["attach", "play_attached"],
    },
)


def _register() -> None:
    from webharness.envs.registration import register_all
    from webharness.envs.task_packs import register_task_packs

    register_all()
    register_task_packs()


_register()
