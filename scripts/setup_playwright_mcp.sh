#!/usr/bin/env bash
# The real Playwright MCP server (@playwright/mcp, pinned in package-lock.json), which
# tests/mcp/test_playwright_mcp_compat.py compares webharness mcp with: npm ci into
# tests/fixtures/playwright_mcp (git-ignored node_modules), again only when its lock
# changed. Without npm it says so; that test then fails, naming this script.
set -euo pipefail
exec "$(dirname "$0")/npm_ci.sh" tests/fixtures/playwright_mcp \
  "the Playwright MCP server for the compatibility test"
