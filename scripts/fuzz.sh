#!/usr/bin/env bash
# Fuzzes each harness for a fixed time (docs/fuzzing.md) and prints a table:
# inputs run, inputs per second, corpus size, and what was found.
#
#   scripts/fuzz.sh [SECONDS] [HARNESS...]      default: 60 s each, every harness
#
# Environment: JOBS (harnesses at once, default 1), FUZZ_DIR (work folder,
# default build/fuzz/work), FUZZ_BIN (a folder of harnesses the fuzz preset
# built elsewhere, e.g. copied to a larger machine without clang: nothing is
# built). Each harness keeps its growing corpus in $FUZZ_DIR/corpus/NAME and
# writes what it breaks on (crash-*, timeout-*, oom-*, leak-*) to
# $FUZZ_DIR/artifacts/NAME/; a found input belongs in fuzz/regressions/NAME/
# once fixed. Exit status 1 when anything was found.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
all=(config expr npy classify report stream triage_folder capture_folder)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
work=${FUZZ_DIR:-build/fuzz/work}
jobs=${JOBS:-1}

bin=${FUZZ_BIN:-build/fuzz/fuzz}
# The harnesses read the zoo and the classifier's rules from this checkout, wherever they were built.
export TILESCOPE_SOURCE_DIR=$PWD TILESCOPE_RESOURCE_DIR=$PWD/resources
if [ -z "${FUZZ_BIN:-}" ]; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  cmake --preset fuzz >/dev/null || exit 2
  cmake --build --preset fuzz -j "$(nproc)" >/dev/null || { echo "fuzz build failed" >&2; exit 2; }
fi

# The seed folders of each harness, as fuzz/CMakeLists.txt lists them for the regression tests
# (which replay the whole recorded reports and streams as well).
seeds() {
  case $1 in
    config) echo kernels tests/data/config fuzz/regressions/config ;;
    expr) echo fuzz/seeds/expr fuzz/regressions/expr ;;
    npy) echo tests/data/npy fuzz/regressions/npy ;;
    classify) echo tests/data/classify fuzz/regressions/classify ;;
    # Small seeds cut from the recorded reports and streams (fuzz/seeds/make_small.py): a
    # 1.8 MB report ran one input a second; ctest --preset fuzz replays the whole ones.
    report) echo fuzz/seeds/report fuzz/regressions/report ;;
    stream) echo fuzz/seeds/stream fuzz/regressions/stream ;;
    triage_folder) echo fuzz/seeds/triage_folder fuzz/regressions/triage_folder ;;
    capture_folder) echo fuzz/seeds/capture_folder fuzz/regressions/capture_folder ;;
  esac
}

run_one() {
  local name=$1 exe=$bin/fuzz_$1
  [ -x "$exe" ] || { echo "$name: no harness built (skipped)" > "$work/$name.summary"; return; }
  mkdir -p "$work/corpus/$name" "$work/artifacts/$name"
  local dirs=()
  for d in $(seeds "$name"); do [ -d "$d" ] && dirs+=("$d"); done
  local dict=()
  [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
  # Configs grow by whole sections: let mutants outgrow the largest seed.
  [ "$name" = config ] && dict+=(-max_len=16384)
  "$exe" "$work/corpus/$name" "${dirs[@]}" "${dict[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$name/" >"$work/$name.log" 2>&1
  local rc=$?
  local runs rate corpus found
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$name.log" | grep -o '[0-9]*$')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/$name.log" | grep -o '[0-9]*$')
  corpus=$(find "$work/corpus/$name" -type f | wc -l)
  found=$(find "$work/artifacts/$name" -type f | wc -l)
  printf '%-14s %10s %8s %7s %6s %4s\n' "$name" "${runs:-?}" "${rate:-?}" "$corpus" "$found" "$rc" > "$work/$name.summary"
}

mkdir -p "$work"
echo "fuzzing ${names[*]} for ${secs}s each ($jobs at once)" >&2
running=0
for n in "${names[@]}"; do
  run_one "$n" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
printf '%-14s %10s %8s %7s %6s %4s\n' harness inputs exec/s corpus found rc
status=0
for n in "${names[@]}"; do
  cat "$work/$n.summary"
  found=$(find "$work/artifacts/$n" -type f 2>/dev/null | wc -l)
  [ "$found" = 0 ] || { status=1; grep -m3 -E "ERROR|SUMMARY|invariant" "$work/$n.log" >&2; }
done
exit $status
