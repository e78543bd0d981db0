"""Episode traces: per step the action, its result, the semantic state and timings.

Written as JSONL (one line a step, each line flushed whole) plus PNG screenshots, in one
folder per episode; ``load_trace`` reads one back into the same models.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from webharness.action_result import ActionResult
from webharness.semantic import SemanticState


class EndedBy(str, Enum):
    """What ended an episode (``EpisodeEnd.ended_by``); a saved trace holds the value."""

    DONE = "done"  # the agent's done()
    SEND_MSG_TO_USER = "send_msg_to_user"  # the agent's answer ended the run
    REPORT_INFEASIBLE = "report_infeasible"
    CRITERIA = "criteria"  # auto_terminate: the task's criteria held after a step
    TASK = "task"  # the task's page ended its own episode (MiniWoB++'s done)
    MAX_STEPS = "max_steps"  # truncated at the step budget
    RUNTIME_ERROR = "runtime_error"  # the browser crashed or hung: not executable
    # An external agent's process ended the episode without an ending action (the agent's
    # fault, never the harness's; webharness.external):
    AGENT_EXIT = "agent_exit"  # it exited with status 0, leaving no answer
    AGENT_ERROR = "agent_error"  # it exited with a non-zero status
    AGENT_CRASH = "agent_crash"  # a signal killed it
    AGENT_TIMEOUT = "agent_timeout"  # it ran past its wall-time budget and was ended
    AGENT_DISCONNECT = "agent_disconnect"  # its client closed the session and it did not exit


class TaskInstance(BaseModel):
    """A task spec instantiated with seeded parameters."""

    model_config = ConfigDict(extra="forbid")

    task_id: str  # e.g. "form"
    env_id: str  # e.g. "WebEval/form-v0"
    category: str
    seed: int | None
    instruction: str
    params: dict[str, Any] = Field(default_factory=dict)


class StepRecord(BaseModel):
    """One step of an episode. Step 0 is the state after reset (no action)."""

    model_config = ConfigDict(extra="forbid")

    index: int
    action: str | None = None  # DSL string of the action taken to reach this state
    action_result: ActionResult | None = None
    state: SemanticState
    obs_digest: str = ""
    screenshot: str | None = None  # file name within the episode folder
    reward: float = 0.0
    success: bool = False  # criteria hold after this step
    user_messages: list[str] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)


class EpisodeEnd(BaseModel):
    """How an episode ended."""

    model_config = ConfigDict(extra="forbid")

    terminated: bool = False
    truncated: bool = False
    success: bool = False
    final_answer: str | None = None  # text of send_msg_to_user, when it ended the run
    ended_by: EndedBy | None = None
    asked_user: bool = False
    not_executable: bool = False  # a harness fault, not the agent's
    error: str | None = None
    criteria_error: str | None = None  # what the task's JS criteria threw on the last page


class EpisodeTrace(BaseModel):
    """A whole episode: the task instance, the steps, the end."""

    model_config = ConfigDict(extra="forbid")

    task: TaskInstance
    steps: list[StepRecord] = Field(default_factory=list)
    end: EpisodeEnd | None = None
    golden_path: str | None = None  # id of the golden path, when this is a golden trace
    agent: str | None = None

    @property
    def actions(self) -> list[str]:
        """The agent's actions, step by step (the reset has none)."""
        return [s.action for s in self.steps[1:] if s.action is not None]

    @property
    def states(self) -> list[SemanticState]:
        """The page's semantic state after the reset and after each step."""
        return [s.state for s in self.steps]
