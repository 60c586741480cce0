#!/usr/bin/env bash
# The format check (ctest -R format): every C++ file of the engine, GUI, apps,
# tests, benchmarks, fuzzers and tools is as clang-format 14 (Debian 12's, the
# pinned version; .clang-format) leaves it. The zoo's kernels (kernels/) and test
# data keep their lines: findings and golden files name their line numbers.
# Exit 77 (skip) where clang-format 14 is not installed: other versions format
# differently. Fix with: tests/format/check_format.sh --fix
set -uo pipefail
cd "${1:-$(dirname "$0")/../..}" || exit 2
fix=0
[ "${2:-${1:-}}" = "--fix" ] && fix=1
cf=""
for c in clang-format-14 clang-format; do
  if command -v "$c" >/dev/null && "$c" --version | grep -q "version 14\."; then cf=$c; break; fi
done
[ -n "$cf" ] || { echo "clang-format 14 not found (apt-get install clang-format): format not checked"; exit 77; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' 2>/dev/null \
  | grep -E '^(core|ui|app|tests/(unit|cuda|gpu|gui)|bench|fuzz|tools)/' | grep -v '^fuzz/seeds/')
[ ${#files[@]} -gt 0 ] || { echo "no files found (not a git checkout?)"; exit 2; }
if [ "$fix" = 1 ]; then "$cf" -i "${files[@]}"; exit 0; fi
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  "$cf" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
echo "format: ${#files[@]} files checked with $("$cf" --version | grep -o 'version [0-9.]*'), ${#bad[@]} not formatted"
for f in "${bad[@]}"; do echo "  $f"; done
[ ${#bad[@]} -eq 0 ]
