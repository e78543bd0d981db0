"""Failure codes: why an episode failed, at which step, and at which stage of the agent.

``annotate`` reads a saved ``EpisodeTrace`` offline (no browser) and returns a
``FailureReport``: one primary ``FailureCode`` with its step and root-cause stage,
the false-success / false-give-up / not-executable flags, and a ``StepFailure`` note for
every failed or ineffective step, each with its ``Evidence``. Every rule is a table or a
small check; ``docs/failure-codes.md`` gives the same definitions and the reason for each
stage mapping.

Modules: ``codes`` (the codes, stages and their tables), ``evidence`` (what a note
shows), ``steps`` (a step as the checks read it), ``step_checks`` and ``episode_checks``
(the rules), ``annotate`` (choosing the primary failure).
"""

from webharness.diagnosis.failures.annotate import (
    AlignmentLike,
    Decision,
    FailureReport,
    annotate,
)
from webharness.diagnosis.failures.codes import (
    DEFINITIONS,
    ERROR_CODES,
    STAGE_REFINEMENTS,
    STAGE_RULES,
    FailureCode,
    Stage,
    StageRefinement,
    root_cause_stage,
)
from webharness.diagnosis.failures.evidence import ElementRef, Evidence, InvalidField, PageSnapshot
from webharness.diagnosis.failures.notes import StepFailure
from webharness.diagnosis.failures.step_checks import step_failures

__all__ = [
    "DEFINITIONS",
    "ERROR_CODES",
    "STAGE_REFINEMENTS",
    "STAGE_RULES",
    "AlignmentLike",
    "Decision",
    "ElementRef",
    "Evidence",
    "FailureReport",
    "FailureCode",
    "InvalidField",
    "PageSnapshot",
    "Stage",
    "StageRefinement",
    "StepFailure",
    "annotate",
    "root_cause_stage",
    "step_failures",
]
