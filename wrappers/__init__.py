"""Gymnasium wrappers of webharness (installed as ``webharness.wrappers``)."""

from webharness.wrappers.diagnosis import FailureAnnotation, GoldenTraceAlignment
from webharness.wrappers.record_trace import RecordTrace

__all__: list[str] = ["FailureAnnotation", "GoldenTraceAlignment", "RecordTrace"]
