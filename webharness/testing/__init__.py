"""Tools for testing agents, the annotator and webharness itself.

The fault-injecting agent and its fault library check the failure annotator on any
task: play a golden path with one fault injected, score the run as the runner does, and
compare the diagnosis with what the fault must produce. The names load on first use, so
``webharness.testing.processes`` stays light to import.

>>> from webharness.testing import FAULTS, Bench, Case          # doctest: +SKIP
>>> Bench().run(Case("form", FAULTS["garbage_text"], 5)).ok     # doctest: +SKIP
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from webharness import _lazy

if TYPE_CHECKING:
    from webharness.testing.fault_agent import (
        Fault,
        FaultContext,
        FaultSetupError,
        FaultyAgent,
        Planned,
    )
    from webharness.testing.faults import FAULTS, bad_value, bad_value_fault
    from webharness.testing.live import LiveStack, live_agrees, play_live
    from webharness.testing.matrix import matrix_markdown, summary_figures
    from webharness.testing.suite import (
        SEED,
        Bench,
        Case,
        CaseAgent,
        CaseResult,
        Verdict,
        all_cases,
        expected_verdict,
        multi_path_scenarios,
    )

__all__ = [
    "FAULTS",
    "SEED",
    "Bench",
    "Case",
    "CaseAgent",
    "CaseResult",
    "Fault",
    "FaultContext",
    "FaultSetupError",
    "FaultyAgent",
    "LiveStack",
    "Planned",
    "Verdict",
    "all_cases",
    "bad_value",
    "bad_value_fault",
    "expected_verdict",
    "live_agrees",
    "matrix_markdown",
    "multi_path_scenarios",
    "play_live",
    "summary_figures",
]

__getattr__, __dir__ = _lazy.lazy_names(
    __name__,
    {
        "webharness.testing.fault_agent": (
            "Fault",
            "FaultContext",
            "FaultSetupError",
            "FaultyAgent",
            "Planned",
        ),
        "webharness.testing.faults": ("FAULTS", "bad_value", "bad_value_fault"),
        "webharness.testing.live": ("LiveStack", "live_agrees", "play_live"),
        "webharness.testing.matrix": ("matrix_markdown", "summary_figures"),
        "webharness.testing.suite": (
            "SEED",
            "Bench",
            "Case",
            "CaseAgent",
            "CaseResult",
            "Verdict",
            "all_cases",
            "expected_verdict",
            "multi_path_scenarios",
        ),
    },
)
