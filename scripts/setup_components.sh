#!/usr/bin/env bash
# The component libraries (Shoelace, Ionic, Fluent UI) that tests/episode/test_components.py and
# benchmarks/bench_axtree.py serve offline: npm ci into tests/fixtures/components_site
# (git-ignored node_modules), again only when its package-lock.json changed. Without npm
# it says so; the tests that need the libraries then fail, naming this script.
set -euo pipefail
cd "$(dirname "$0")/../tests/fixtures/components_site"
stamp=node_modules/.webharness-installed
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: npm is missing: the component-library pages (tests/fixtures/components_site) are not installed" >&2
  exit 0
fi
echo "setup: installing the component libraries for the tests (npm ci)"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
