#!/usr/bin/env bash
# Set up the peer libraries for bench_peers.py, each in its own virtual environment under
# benchmarks/peers/.venvs/ (git-ignored), so their pinned dependencies never touch ours.
#
#   browsergym  browsergym-core==0.14.3 (pins an old Playwright; launched on the system
#               Chromium by bench_peers' driver: Playwright's browser download is not used)
#               and browsergym-miniwob==0.14.3 (its MiniWoB++ envs, for bench_miniwob.py)
#   miniwob     miniwob (Selenium + chromedriver; its package ships the task HTML pages)
#
# Skips what is already set up. Needs: python3 with venv, apt-get (for chromium-driver).
# Run: bash benchmarks/peers/setup.sh
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENVS="$HERE/.venvs"
PYTHON="${PYTHON:-python3}"
mkdir -p "$VENVS"

make_venv() {  # name, marker import, pip requirement...
  local name="$1" marker="$2"; shift 2
  local venv="$VENVS/$name"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $marker" 2>/dev/null; then
    echo "[setup] $name: already set up ($venv)"
    return 0
  fi
  echo "[setup] $name: creating $venv"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet "$@"
  "$venv/bin/python" -c "import $marker" && echo "[setup] $name: ok"
}

# chromedriver for MiniWoB++'s Selenium, matching Debian's Chromium.
if ! command -v chromedriver >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing chromium-driver (apt)"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq chromium-driver
  else
    echo "[setup] no chromedriver and no apt-get: MiniWoB++ will be skipped" >&2
  fi
else
  echo "[setup] chromedriver: $(command -v chromedriver)"
fi

make_venv browsergym browsergym.miniwob "browsergym-core==0.14.3" "browsergym-miniwob==0.14.3"
make_venv miniwob miniwob miniwob

echo "[setup] done: $(ls "$VENVS")"
