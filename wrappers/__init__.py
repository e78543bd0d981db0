"""Gymnasium wrappers of webharness (installed as ``webharness.wrappers``)."""

# --- perturbations ---------------------------------------------------------------------
from webharness.perturbations import PERTURBATIONS, UnknownPerturbationError
from webharness.wrappers.diagnosis import FailureAnnotation, GoldenTraceAlignment
from webharness.wrappers.perturbations import (
    DomReplacementPerturbation,
    IdRandomizationPerturbation,
    LabelDriftPerturbation,
    LatencyPerturbation,
    LayoutShiftPerturbation,
    ParaphrasePerturbation,
    PerturbationWrapper,
    PopupPerturbation,
    SlowRenderingPerturbation,
    ThemePerturbation,
    perturb,
)
from webharness.wrappers.record_trace import RecordTrace

__all__: list[str] = [
    "FailureAnnotation",
    "GoldenTraceAlignment",
    "RecordTrace",
    # perturbations
    "DomReplacementPerturbation",
    "IdRandomizationPerturbation",
    "LabelDriftPerturbation",
    "LatencyPerturbation",
    "LayoutShiftPerturbation",
    "PERTURBATIONS",
    "ParaphrasePerturbation",
    "PerturbationWrapper",
    "PopupPerturbation",
    "SlowRenderingPerturbation",
    "ThemePerturbation",
    "UnknownPerturbationError",
    "perturb",
]
