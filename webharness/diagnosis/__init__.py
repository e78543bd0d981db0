"""Offline diagnosis of saved traces: alignment to golden traces, failure codes and
root-cause stages, trace rules, and scoring one trace. Imports nothing of the browser."""
