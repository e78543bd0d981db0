#!/usr/bin/env bash
# eslint and prettier, the checks of the package's JavaScript that scripts/lint.sh runs:
# npm ci at the checkout's root (package.json, pinned in package-lock.json; node_modules
# git-ignored), again only when the lock changed. Without npm it says so; scripts/lint.sh
# and tests/browser/test_js_lint.py then fail, naming this script.
set -euo pipefail
exec "$(dirname "$0")/npm_ci.sh" . "eslint and prettier for scripts/lint.sh"
