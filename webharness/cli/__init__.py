"""The ``webharness`` command line: one module per command group (``tasks``: list and demo;
``run``: run and evaluate; ``record``; ``cache``; ``results``: report and score), the
parser and its error lines in ``app``.
"""

from webharness.cli.app import build_parser, main

__all__ = ["build_parser", "main"]
