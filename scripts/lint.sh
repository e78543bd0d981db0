#!/usr/bin/env bash
# The static checks that scripts/test.sh runs beside pytest: ruff (lint and format) over
# the tree, eslint and prettier over the package's JavaScript (webharness/browser/js;
# installed by scripts/setup_js_checks.sh), and mypy over the package as it is installed.
# envs/, wrappers/ and tasks/ are installed as webharness.envs, .wrappers and .tasks
# (setuptools package-dir), which mypy cannot map from folders, so it checks a tree of
# links laid out as the installed package (build/typecheck/webharness); its messages name
# files by those links.
set -euo pipefail
cd "$(dirname "$0")/.."
# Their caches live in .venv (ignored as a whole): scripts/test.sh runs these checks beside
# pytest, whose packaging test lists the checkout's untracked files.
export RUFF_CACHE_DIR="$PWD/.venv/cache/ruff" MYPY_CACHE_DIR="$PWD/.venv/cache/mypy"
.venv/bin/ruff check --quiet .
.venv/bin/ruff format --check --quiet .
if [ ! -x node_modules/.bin/eslint ] || [ ! -x node_modules/.bin/prettier ]; then
  echo "lint: eslint and prettier are not installed: run scripts/setup_js_checks.sh" >&2
  exit 1
fi
# Every .js file of the package; eslint.config.js says which are modules (the page agent).
node_modules/.bin/eslint --max-warnings 0 webharness/browser/js
node_modules/.bin/prettier --check --log-level warn webharness/browser/js eslint.config.js
tree=build/typecheck/webharness
rm -rf "$tree" && mkdir -p "$tree"
for entry in webharness/*; do ln -s "../../../$entry" "$tree/"; done
ln -s ../../../envs "$tree/envs"
ln -s ../../../wrappers "$tree/wrappers"
.venv/bin/python -m mypy "$tree"
