#!/usr/bin/env bash
# Records the compute-sanitizer fixtures of tests/data/classify (rec_*, sanitizer/clean_*):
# memcheck, racecheck, synccheck and initcheck over bug variants of the zoo, run through
# `tilescope-run worker`, as text (--log-file) and XML (--xml --save). Run on a GPU host:
#   scripts/record-sanitizer-fixtures.sh [TILESCOPE_RUN] [OUTDIR]
# The committed fixtures keep the first records of each log (and the summary lines); the
# GPU, driver and sanitizer versions are written to OUTDIR/env.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu/app/tilescope-run}
D=${2:-sanitizer-fixtures}
mkdir -p "$D"
export TILESCOPE_RESOURCE_DIR=$PWD/resources
{ nvidia-smi -L; compute-sanitizer --version; } > "$D/env.txt" 2>&1

# run NAME TOOL CONFIG [worker args]: the text report, then the same run as XML
run() {
  local n=$1 t=$2 c=$3; shift 3
  timeout 60 compute-sanitizer --tool "$t" --log-file "$D/$n.txt" "$B" worker "$c" --no-timing "$@" > /dev/null 2>&1
  echo "$n text rc=$?" >> "$D/env.txt"
  timeout 60 compute-sanitizer --tool "$t" --xml --save "$D/$n.xml" "$B" worker "$c" --no-timing "$@" > /dev/null 2>&1
  echo "$n xml rc=$?" >> "$D/env.txt"
}
run memcheck_gemm_misaligned memcheck kernels/gemm/gemm_bug_misaligned.tscfg.json
# N=4000: rows 1000..1023 of C end 192 KB past C, beyond the 64 KiB guard zone memcheck cannot see past
run memcheck_gemm_no_mask memcheck kernels/gemm/gemm_bug_no_mask.tscfg.json --set N=4000
run memcheck_flash_attn_misaligned memcheck kernels/attention/flash_attn_bug_misaligned.tscfg.json --set S=128
run racecheck_softmax_no_sync racecheck kernels/softmax/softmax_bug_no_sync.tscfg.json --set ROWS=8 --set N=1024
run synccheck_softmax synccheck kernels/softmax/softmax_bug_no_sync.tscfg.json --set ROWS=8 --set N=1024
run initcheck_highway_gate initcheck kernels/gate/highway_gate.tscfg.json --set N=4096
timeout 60 compute-sanitizer --tool racecheck --racecheck-report hazard --log-file "$D/racecheck_hazard_softmax_no_sync.txt" \
  "$B" worker kernels/softmax/softmax_bug_no_sync.tscfg.json --no-timing --set ROWS=2 --set N=1024 > /dev/null 2>&1
echo "racecheck_hazard rc=$?" >> "$D/env.txt"
