"""Evaluation records: one ``EvalAttempt`` per episode, appended to a JSONL file.

The file is the run's ledger: ``summarize`` turns it into statistics, ``write_report``
into pages, and a resumed run skips every episode whose ``key()`` is already in it.

Example:
    >>> a = EvalAttempt(scenario_id="WebEval/form-v0", category="form", runner="oracle",
    ...                 seed=3, passed=True)
    >>> a.key()
    ('oracle', 'WebEval/form-v0', 3, 0, '')
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: (runner, scenario_id, seed, trial, perturbations): what makes an episode unique in a run.
AttemptKey = tuple[str, str, int | None, int, str]


class EvalAttempt(BaseModel):
    """The outcome of one episode, flat enough to be one JSONL line or one table row."""

    model_config = ConfigDict(extra="forbid")

    scenario_id: str  # env id, e.g. "WebEval/form-v0"
    category: str
    runner: str  # agent name
    model: str | None = None  # the LLM behind the agent, when there is one
    seed: int | None
    trial: int = 0  # repeat index of the same (runner, scenario, seed, perturbations)
    perturbations: str = ""  # "" is clean; else a stack such as "popup,latency@0.5"
    passed: bool
    false_success: bool = False  # the agent claimed success, the criteria say no
    false_give_up: bool = False  # the agent reported the task infeasible, it was not
    not_executable: bool = False  # a harness fault: kept out of the success rate
    duration_ms: float = 0.0
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int | None = None  # model requests retried (LLM agent); None: not counted
    # what ended the episode: an EndedBy value (done, max_steps, an external agent's
    # agent_timeout, ...); None for an attempt recorded before it was kept
    ended_by: str | None = None
    failure_code: str | None = None  # a FailureCode value
    failure_message: str = ""
    root_cause: str | None = None  # perception, understanding, decision, execution
    failure_step: int | None = None
    failure_runner_up: str | None = None  # the other defensible FailureCode value, if any
    failure_decided_by: str | None = None  # the annotate rule that chose failure_code
    first_divergence_step: int | None = None
    decisive_step: int | None = None  # the point of no return (diagnosis.decisive)
    progress_rate: float | None = None  # golden key states reached in order, 0..1
    fidelity: float | None = None  # nDTW-style similarity to the golden path, 0..1
    trace_dir: str | None = None  # episode folder, relative to the run folder
    error: str | None = None  # harness exception text, when not executable
    criteria_error: str | None = None  # what the task's JS criteria threw on the last page
    # where the worker spent the job's time: episode, trace_writing (within the episode),
    # golden (finding or recording the golden traces), scoring
    phases_ms: dict[str, float] = Field(default_factory=dict)

    def key(self) -> AttemptKey:
        """The identity of this episode within a run, used to skip it on resume."""
        return (self.runner, self.scenario_id, self.seed, self.trial, self.perturbations)


def append_attempt(path: Path, attempt: EvalAttempt) -> None:
    """Append one attempt as a single JSON line, flushed, so a crash loses at most it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(attempt.model_dump_json() + "\n")
        f.flush()


def read_attempts(path: Path) -> list[EvalAttempt]:
    """Read a JSONL ledger; a torn last line (the run was killed mid-write) is skipped.

    Returns an empty list when the file does not exist yet, so a fresh run and a resumed
    run take the same path.
    """
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    attempts = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            attempts.append(EvalAttempt.model_validate_json(line))
        except ValidationError:  # pydantic reports bad JSON this way too
            # Only the final line can be torn by a kill; anything earlier is corruption.
            if number != len(lines):
                raise
    return attempts
