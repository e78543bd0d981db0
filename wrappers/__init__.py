"""Gymnasium wrappers of webharness (installed as ``webharness.wrappers``)."""

__all__: list[str] = []
