#!/usr/bin/env bash
# The static checks: scripts/test.sh runs them all beside pytest, and each hook of
# .pre-commit-config.yaml runs one of them by name (scripts/lint.sh mypy), so the two never
# differ (tests/test_lint_config.py holds the hooks equal to CHECKS).
#   ruff, ruff-format  lint (docstrings of the public modules too) and format, the tree
#   eslint, prettier   the package's JavaScript (webharness/browser/js), pinned in
#                      package.json and installed by scripts/setup_js_checks.sh
#   check-yaml         every YAML file parses
#   end-of-file        source and docs end with one newline (a missing one is added)
#   mypy               the package as installed (scripts/typecheck.sh)
# Usage: scripts/lint.sh [CHECK ...]   (no name: every check)
set -euo pipefail
cd "$(dirname "$0")/.."
CHECKS=(ruff ruff-format eslint prettier check-yaml end-of-file mypy)
# Their caches live in .venv (ignored as a whole): scripts/test.sh runs these checks beside
# pytest, whose packaging test lists the checkout's untracked files.
export RUFF_CACHE_DIR="$PWD/.venv/cache/ruff" MYPY_CACHE_DIR="$PWD/.venv/cache/mypy"

need_js_tools() {
  if [ ! -x node_modules/.bin/eslint ] || [ ! -x node_modules/.bin/prettier ]; then
    echo "lint: eslint and prettier are not installed: run scripts/setup_js_checks.sh" >&2
    exit 1
  fi
}

run_check() {
  case "$1" in
    ruff) .venv/bin/ruff check --quiet . ;;
    ruff-format) .venv/bin/ruff format --check --quiet . ;;
    # Every .js file of the package; eslint.config.js says which are modules (the page agent).
    eslint) need_js_tools && node_modules/.bin/eslint --max-warnings 0 webharness/browser/js ;;
    prettier)
      need_js_tools
      node_modules/.bin/prettier --check --log-level warn webharness/browser/js eslint.config.js
      ;;
    check-yaml) git ls-files -z '*.yaml' '*.yml' | xargs -0 .venv/bin/check-yaml ;;
    end-of-file)
      git ls-files -z -- '*.py' '*.js' '*.md' '*.yaml' '*.yml' '*.toml' '*.sh' '*.html' \
        '*.css' '*.j2' | xargs -0 .venv/bin/end-of-file-fixer
      ;;
    mypy) scripts/typecheck.sh ;;
    *)
      echo "lint: unknown check '$1'; the checks are: ${CHECKS[*]}" >&2
      exit 2
      ;;
  esac
}

for check in "${@:-${CHECKS[@]}}"; do
  run_check "$check"
done
