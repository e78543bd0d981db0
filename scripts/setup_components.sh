#!/usr/bin/env bash
# The component libraries (Shoelace, Ionic, Fluent UI) that tests/episode/test_components.py and
# benchmarks/bench_axtree.py serve offline: npm ci into tests/fixtures/components_site
# (git-ignored node_modules), again only when its package-lock.json changed. Without npm
# it says so; the tests that need the libraries then fail, naming this script.
set -euo pipefail
exec "$(dirname "$0")/npm_ci.sh" tests/fixtures/components_site \
  "the component libraries for the tests"
