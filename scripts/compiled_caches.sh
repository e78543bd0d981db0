# Sourced by scripts/test.sh and scripts/evaluate.sh: keep compiled code in .venv/cache.
# Both start many Python processes (xdist workers, CLI runs, runner and Ray workers) and
# Playwright drivers. setup.sh installs with uv, which compiles nothing ahead; and where the
# environment sets PYTHONDONTWRITEBYTECODE (as this CI's does), each Python process
# compiled the package and its dependencies again (`import webharness` and the CLI: 1.0 s
# of CPU, 0.6 s from compiled code) and each pytest worker rewrote every test module
# (collection: 6.6 s, 3.6 s); a driver compiled its JavaScript (~0.05 s more). Compiled
# code is kept in .venv instead, outside the checkout.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$PWD/.venv/cache/python"
export NODE_COMPILE_CACHE="$PWD/.venv/cache/node"
