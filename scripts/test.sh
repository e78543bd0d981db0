#!/usr/bin/env bash
# The test command: set up what is missing, run the static checks (scripts/lint.sh: ruff
# and mypy; any finding fails), then the whole suite (slow tests included, and the examples
# in the package's docstrings) on one worker process more than the machine has cores, at
# most 8 (a file's tests stay on one worker so its browser is shared). A test drives a
# pipeline (Python, Playwright's driver, Chromium's processes) that waits on itself part of
# the time: on 2 cores, 2 workers kept them 85-97% busy and took 14 min 4 s, 3 took
# 11 min 8 s, 4 no less. Files are handed out in collection order, which tests/conftest.py
# starts with the longest modules (xdist would otherwise send the files with most tests
# first, and the one-test soak last). Extra arguments go to pytest, e.g.
# scripts/test.sh -m "not browser" (the edit-test loop: no Chromium) or
# scripts/test.sh -m "not slow" -x
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/compiled_caches.sh
scripts/setup.sh
scripts/lint.sh
workers=$(($(nproc) + 1))
exec .venv/bin/python -m pytest -n "$((workers < 8 ? workers : 8))" --dist loadfile \
  --no-loadscope-reorder "$@"
