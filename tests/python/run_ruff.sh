#!/usr/bin/env sh
# python.ruff: ruff check over the project's Python (ruff.toml). The Triton
# venv's ruff (scripts/install-deps.sh), else one on PATH; exit 77 (skipped)
# where neither is installed.
# Usage: run_ruff.sh SOURCE_DIR
cd "$1" || exit 2
r="$1/build-deps/triton-venv/bin/ruff"
[ -x "$r" ] || r=$(command -v ruff) || { echo "ruff is not installed: pip install ruff (scripts/install-deps.sh)"; exit 77; }
"$r" --version
exec "$r" check --no-cache .
