#!/usr/bin/env bash
# Stagehand (@browserbasehq/stagehand, pinned in package-lock.json), an agent library whose
# CDP client is its own, which tests/external/test_stagehand.py runs as an own-browser
# agent: npm ci into tests/fixtures/stagehand (git-ignored node_modules), again only when
# its lock changed. Without npm it says so; that test then fails, naming this script.
set -euo pipefail
exec "$(dirname "$0")/npm_ci.sh" tests/fixtures/stagehand "Stagehand for its own-browser test"
