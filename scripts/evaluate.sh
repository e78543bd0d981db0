#!/usr/bin/env bash
# The main job: set up what is missing, then evaluate the built-in agents over the
# built-in scenarios and write the report. Extra arguments go to `webharness evaluate`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/compiled_caches.sh
scripts/setup.sh
exec .venv/bin/webharness evaluate "$@"
