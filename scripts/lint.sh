#!/usr/bin/env bash
# The static checks that scripts/test.sh runs beside pytest: ruff (lint and format) over
# the tree, and mypy over the package as it is installed. envs/, wrappers/ and tasks/ are
# installed as webharness.envs, .wrappers and .tasks (setuptools package-dir), which mypy
# cannot map from folders, so it checks a tree of links laid out as the installed package
# (build/typecheck/webharness); its messages name files by those links.
set -euo pipefail
cd "$(dirname "$0")/.."
# Their caches live in .venv (ignored as a whole): scripts/test.sh runs these checks beside
# pytest, whose packaging test lists the checkout's untracked files.
export RUFF_CACHE_DIR="$PWD/.venv/cache/ruff" MYPY_CACHE_DIR="$PWD/.venv/cache/mypy"
.venv/bin/ruff check --quiet .
.venv/bin/ruff format --check --quiet .
tree=build/typecheck/webharness
rm -rf "$tree" && mkdir -p "$tree"
for entry in webharness/*; do ln -s "../../../$entry" "$tree/"; done
ln -s ../../../envs "$tree/envs"
ln -s ../../../wrappers "$tree/wrappers"
.venv/bin/python -m mypy "$tree"
