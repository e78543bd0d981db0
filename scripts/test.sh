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
# The suite starts dozens of Python processes (xdist workers, CLI runs, runner and Ray
# workers) and Playwright drivers. Where the environment sets PYTHONDONTWRITEBYTECODE (as
# this CI's does), each Python one compiled the package again (`import webharness` and the
# CLI: 1.0 s of CPU, 0.6 s from compiled code) and each worker had pytest rewrite every
# test module (collection: 6.6 s, 3.6 s); a driver compiled its JavaScript (~0.05 s more).
# Compiled code is kept in .venv instead, outside the checkout.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$PWD/.venv/cache/python"
export NODE_COMPILE_CACHE="$PWD/.venv/cache/node"
scripts/setup.sh
scripts/lint.sh
workers=$(($(nproc) + 1))
exec .venv/bin/python -m pytest -n "$((workers < 8 ? workers : 8))" --dist loadfile \
  --no-loadscope-reorder "$@"
