#!/usr/bin/env bash
# browser-use (pinned below), which tests/external/test_browser_use.py runs as an external
# agent, in a virtualenv of its own, .venv-browser-use (git-ignored): it pins pydantic,
# pillow, websockets and protobuf lower than webharness, so it cannot share .venv. The
# agent process runs with that interpreter and imports only browser-use. Installed again
# only when the pin changes; without uv in .venv it says so, and that test then fails,
# naming this script.
set -euo pipefail
cd "$(dirname "$0")/.."
pin="browser-use==0.13.14"
venv=.venv-browser-use
stamp=$venv/.webharness-installed
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pin" ]; then
  exit 0
fi
if [ ! -x .venv/bin/uv ]; then
  echo "setup: uv is missing from .venv: browser-use ($venv) is not installed" >&2
  exit 0
fi
echo "setup: installing $pin into $venv"
[ -x "$venv/bin/python" ] || .venv/bin/uv venv -q --python 3.11 "$venv"
.venv/bin/uv pip install -q --python "$venv/bin/python" "$pin"
echo "$pin" > "$stamp"
