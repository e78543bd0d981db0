#!/usr/bin/env bash
# The test command: set up what is missing, then run the whole suite (slow tests included)
# on two worker processes (most of a browser test is waiting on Chromium; a file's tests
# stay on one worker so its browser fixtures are shared). Extra arguments go to pytest,
# e.g. scripts/test.sh -m "not slow" -x
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/python -m pytest -n 2 --dist loadfile "$@"
