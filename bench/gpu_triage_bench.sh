#!/usr/bin/env bash
# The triage on a GPU host (docs/triage.md, "The GPU bench"):
#
#   bench/gpu_triage_bench.sh BUILD_DIR OUT
#
# runs `tilescope-run triage` over bench/triage/problems (65 KernelBench-style
# problems, bench/triage/make_problems.py) with --jobs N (N = GPUs x SLOTS_PER_GPU,
# default 8 slots per GPU: an entry is mostly Python and compiles, so one GPU
# serves several; on a 16-core H200 host 8 slots took 130.6 s for the 65 problems
# where 4 took 258 s for 61) and then with --jobs 1 on every third problem for the time that
# is left, each run with a fresh Triton cache, and prints the taxonomy, how many
# entries name the manifest's category and line, wall time per entry and the
# scaling. Total time stays under TRIAGE_BUDGET_S (default 600 s: with every
# candidate traced, the default since 2026-12-03, 65 problems took 258 s on four
# slots of one H200, past the 231 s the old 420 s budget gave run N): --time-limit
# stops starting entries, and what is left stays pending in the output (it says so).
# TRIAGE_ARGS adds options to both runs (--fast: the old capture of failures only).
#
# Environment: TILESCOPE_PYTHON (default python3: the one with torch and Triton),
# SLOTS_PER_GPU, TRIAGE_JOBS (overrides N), TRIAGE_BUDGET_S, TRIAGE_DEPTH (default
# run: `run --trace` of the captured kernels; diagnose is thorough but slower).
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR OUT" >&2
  exit 2
fi
BUILD=$(cd "$1" && pwd)
OUT=$2
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
TS="$BUILD/app/tilescope-run"
PROBLEMS=${TRIAGE_PROBLEMS:-"$HERE/triage/problems"}
BUDGET=${TRIAGE_BUDGET_S:-600}
DEPTH=${TRIAGE_DEPTH:-run}
export TILESCOPE_PYTHON=${TILESCOPE_PYTHON:-python3}
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }

[ -x "$TS" ] || { echo "no tilescope-run in $BUILD/app" >&2; exit 2; }
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "$NGPU" -ge 1 ] || { echo "no GPU (nvidia-smi -L lists none)" >&2; exit 3; }
JOBS_N=${TRIAGE_JOBS:-$((NGPU * ${SLOTS_PER_GPU:-8}))}
"$TILESCOPE_PYTHON" -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__,
  'triton', triton.__version__, 'gpu', torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none')" ||
  { echo "$TILESCOPE_PYTHON has no torch/triton (set TILESCOPE_PYTHON)" >&2; exit 3; }
echo "GPUs: $NGPU; --jobs N = $JOBS_N; depth $DEPTH; budget ${BUDGET} s"

# Run N: every problem. Its time limit leaves the jobs-1 run a third of the budget.
LIMIT_N=$((BUDGET * 55 / 100))
# shellcheck disable=SC2086
TRITON_CACHE_DIR="$OUT/triton-cache-n" "$TS" triage "$PROBLEMS" -o "$OUT/triage_jobsN.json" --force \
  --jobs "$JOBS_N" --depth "$DEPTH" --seeds 2 --timeout 60 --time-limit "$LIMIT_N" ${TRIAGE_ARGS:-} 2> "$OUT/triage_jobsN.log"
echo "jobs $JOBS_N: exit $? after $(elapsed) s ($(grep -c '^triage \[' "$OUT/triage_jobsN.log") entries)"

# Run 1: every third problem (a sample of every kind), for the time that is left.
LEFT=$((BUDGET - $(elapsed) - 20))
if [ "$LEFT" -gt 20 ]; then
  SUBSET=$(find "$PROBLEMS" -maxdepth 1 -name '*_new.py' | sort | awk 'NR % 3 == 1')
  # shellcheck disable=SC2086
  TRITON_CACHE_DIR="$OUT/triton-cache-1" "$TS" triage $SUBSET -o "$OUT/triage_jobs1.json" --force \
    --jobs 1 --depth "$DEPTH" --seeds 2 --timeout 60 --time-limit "$LEFT" ${TRIAGE_ARGS:-} 2> "$OUT/triage_jobs1.log"
  echo "jobs 1: exit $? after $(elapsed) s ($(grep -c '^triage \[' "$OUT/triage_jobs1.log") entries)"
else
  echo "jobs 1: skipped, no time left in the budget"
fi

"$BUILD/app/tilescope-run" export "$OUT/triage_jobsN.json" --format md -o "$OUT/triage_jobsN.md" 2>/dev/null
python3 "$HERE/triage/summarize.py" "$HERE/triage/manifest.json" "$OUT/triage_jobsN.json" \
  --jobs1 "$OUT/triage_jobs1.json" --json "$OUT/summary.json"
echo "total $(elapsed) s; files in $OUT"
