"""Evaluation records, their statistics, and the JSON, Markdown and HTML reports. Imports
nothing of the browser."""
