"""Offline diagnosis of saved traces; imports nothing of the browser.

``similarity`` (how alike two page states are, ``generated_ids`` compared as one),
``app_origin`` (a trace's own app instance read as the placeholder origin),
``progress`` (when a golden state counts as reached), ``alignment`` (the run laid over its
golden traces, each pair with its ``element_diff``), ``decisive`` (the run's point of no
return), ``failures`` (failure codes and root-cause stages) and ``scoring`` (all of it for
one trace, with the task's trace rules)."""

__all__: list[str] = []  # users import the modules themselves
