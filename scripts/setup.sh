#!/usr/bin/env bash
# Everything webharness needs on a fresh Debian machine, installed only when missing:
# Chromium and its headless shell from Debian's packages (unless a browser is already
# there), a virtualenv in .venv, and the package with its test tools. Safe to run again:
# it skips what is done.
set -euo pipefail
cd "$(dirname "$0")/.."

have_browser() {
  [ -n "${WEBHARNESS_CHROMIUM:-}" ] && return 0
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
    || command -v google-chrome >/dev/null 2>&1
}

apt_install() {
  local sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  [ -n "${apt_updated:-}" ] || { $sudo_cmd apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}

if ! have_browser; then
  echo "setup: installing Chromium from Debian's packages"
  apt_install chromium
fi
# The headless shell makes every new page ~6x cheaper in browser CPU (see
# docs/architecture.md); the full Chromium still serves headed runs (webharness record).
if [ -z "${WEBHARNESS_CHROMIUM:-}" ] && ! command -v chromium-headless-shell >/dev/null 2>&1 \
    && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing chromium-headless-shell from Debian's packages"
  apt_install chromium-headless-shell \
    || echo "setup: chromium-headless-shell is not available here; headless runs use the full Chromium (slower resets)"
fi

# The component and widget libraries some browser tests serve offline, and eslint and
# prettier for scripts/lint.sh (npm, into git-ignored folders), fetched while Python's
# packages install: all wait mostly on the network. If the install fails, the script still waits
# for npm, so nothing is left running.
scripts/setup_components.sh &
components=$!
scripts/setup_widgets.sh &
widgets=$!
scripts/setup_js_checks.sh &
js_checks=$!
scripts/setup_playwright_mcp.sh &
playwright_mcp=$!
scripts/setup_stagehand.sh &
stagehand=$!
trap 'wait' EXIT

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi

# Reinstall only when the project's dependencies changed since the last install.
stamp=.venv/.webharness-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing webharness and its dependencies into .venv"
  # uv installs the same packages in a tenth of pip's time (7 s against 70 s here, most
  # of pip's spent compiling every module of every dependency; Python compiles what is
  # imported, once, into .venv/cache). pip serves where uv cannot be had or reach the index.
  if ! { .venv/bin/python -m pip install -q --disable-pip-version-check uv \
      && .venv/bin/uv pip install -q --python .venv/bin/python -e ".[dev]"; }; then
    echo "setup: uv could not install; installing with pip"
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[dev]"
  fi
  echo "$want" > "$stamp"
fi

# browser-use for its test as an external agent, in a virtualenv of its own (it pins
# libraries lower than webharness); it needs the uv installed into .venv just above.
scripts/setup_browser_use.sh

wait "$components"
wait "$widgets"
wait "$js_checks"
wait "$playwright_mcp"
wait "$stagehand"
