"""Episode traces: the models, writing and loading them on disk, turning an env's outputs
into trace steps, actions read by meaning (``signatures``) and the checks a task declares
over a trace (``rules``)."""

from webharness.trace.io import TraceError, TraceWriter, load_screenshot, load_trace
from webharness.trace.models import EndedBy, EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

__all__ = [
    "EndedBy",
    "EpisodeEnd",
    "EpisodeTrace",
    "StepRecord",
    "TaskInstance",
    "TraceError",
    "TraceWriter",
    "load_screenshot",
    "load_trace",
]
