#!/usr/bin/env bash
# The widget libraries (noUiSlider, SortableJS, Dropzone) that tests/episode/test_npm_widgets.py
# serves offline: npm ci into tests/fixtures/widgets_site (git-ignored node_modules), again
# only when its package-lock.json changed. Without npm it says so; the tests that need the
# libraries then fail, naming this script.
set -euo pipefail
exec "$(dirname "$0")/npm_ci.sh" tests/fixtures/widgets_site \
  "the widget libraries for the tests"
