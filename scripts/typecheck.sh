#!/usr/bin/env bash
# mypy over the package as it is installed. envs/, wrappers/ and tasks/ are installed as
# webharness.envs, .wrappers and .tasks (setuptools package-dir), which mypy cannot map
# from folders, so it checks a tree of links laid out as the installed package
# (build/typecheck/webharness); its messages name files by those links. Run by
# scripts/lint.sh and by the mypy hook of .pre-commit-config.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
export MYPY_CACHE_DIR="${MYPY_CACHE_DIR:-$PWD/.venv/cache/mypy}"
tree=build/typecheck/webharness
rm -rf "$tree" && mkdir -p "$tree"
for entry in webharness/*; do ln -s "../../../$entry" "$tree/"; done
ln -s ../../../envs "$tree/envs"
ln -s ../../../wrappers "$tree/wrappers"
.venv/bin/python -m mypy "$tree"
