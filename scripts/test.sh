#!/usr/bin/env bash
# The test command: set up what is missing, run the static checks (scripts/lint.sh: ruff
# and mypy; any finding fails), then the whole suite (slow tests included, and the examples
# in the package's docstrings) on two worker processes (a file's tests stay on one worker
# so its browser is shared). Files are handed out in collection order, which tests/conftest.py starts with the longest
# modules (xdist would otherwise send the files with most tests first, and the one-test
# soak last). Extra arguments go to pytest, e.g. scripts/test.sh -m "not browser" (the
# edit-test loop: no Chromium) or scripts/test.sh -m "not slow" -x
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/lint.sh
exec .venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder "$@"
