"""Gymnasium wrappers of webharness (installed as ``webharness.wrappers``)."""

# --- perturbations ---------------------------------------------------------------------
from webharness.perturbations import PERTURBATIONS, UnknownPerturbationError
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

__all__: list[str] = [
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
