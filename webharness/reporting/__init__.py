"""Evaluation records, their statistics, and the JSON, Markdown and HTML reports. Imports
nothing of the browser."""

__all__: list[str] = []  # users import the modules themselves
