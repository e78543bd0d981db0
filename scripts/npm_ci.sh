#!/usr/bin/env bash
# npm ci in a folder of the checkout (its node_modules git-ignored), only when its
# package-lock.json changed since the last install. npm's cache serves what it holds
# (--prefer-offline), so once fetched the install runs without the network. Without npm
# it says so and installs nothing; what needs the packages then fails, naming the script
# that installs them.
# Usage: scripts/npm_ci.sh FOLDER WHAT   (FOLDER relative to the checkout)
set -euo pipefail
folder=$1 what=$2
cd "$(dirname "$0")/../$folder"
stamp=node_modules/.webharness-installed
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: npm is missing: $what ($folder) are not installed" >&2
  exit 0
fi
echo "setup: installing $what (npm ci in $folder)"
npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
