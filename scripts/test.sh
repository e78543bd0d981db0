#!/usr/bin/env bash
# The test command: set up what is missing, run the static checks (scripts/lint.sh: ruff,
# eslint, prettier and mypy; any finding fails) and, beside them, the whole suite (slow tests included, and
# the examples in the package's docstrings) on one worker process more than the machine has
# cores, at most 8 (a file's tests stay on one worker so its browser is shared). A test drives a
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
# The static checks run beside pytest, not before it: mypy keeps one core busy for ~25 s on
# a fresh clone, and the other sat idle. Their findings are printed when pytest is done, and
# any of them fails the command. They run in a process group of their own (setsid), which
# the EXIT trap ends when pytest is interrupted (pytest's status 2) or fails to start.
lint_log=$(mktemp)
setsid scripts/lint.sh >"$lint_log" 2>&1 &
lint=$!
trap 'kill -- "-$lint" 2>/dev/null || true; rm -f "$lint_log"' EXIT
workers=$(($(nproc) + 1))
status=0
.venv/bin/python -m pytest -n "$((workers < 8 ? workers : 8))" --dist loadfile \
  --no-loadscope-reorder "$@" || status=$?
if [ "$status" -eq 2 ]; then
  exit 2
fi
lint_status=0
wait "$lint" || lint_status=$?
cat "$lint_log"
if [ "$lint_status" -ne 0 ]; then
  echo "test.sh: the static checks failed (scripts/lint.sh, above)" >&2
  exit 1
fi
exit "$status"
