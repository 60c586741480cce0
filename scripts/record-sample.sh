#!/usr/bin/env bash
# Records the bundled sample session on a GPU host: real captures of the kernel
# zoo, shrunk for shipping (tools/shrink_report.py), into DIR (default
# resources/sample). session.json is what the workbench opens with no argument.
# Usage: scripts/record-sample.sh BUILD_DIR [DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$1/app/tilescope-run; dir=${2:-resources/sample}
mkdir -p "$dir"; tmp=$(mktemp -d)
"$bin" diagnose kernels/gemm/gemm_bug_no_mask_aligned.tscfg.json -o "$tmp/session.json" 2>/dev/null
"$bin" sweep kernels/gemm/gemm_tiled_sweep.tscfg.json -o "$tmp/gemm_sweep.json" 2>/dev/null
# A Triton kernel's session (docs/triton.md): the unmasked store of kernels/triton/add.py.
"$bin" diagnose kernels/triton/add_bug_store_no_mask.tscfg.json -o "$tmp/triton_session.json" 2>/dev/null
for c in gemm/gemm_bug_no_mask gemm/gemm_bug_misaligned gemm/gemm_bug_transposed gemm/gemm_bug_no_sync \
         gate/highway_gate_bug_floor_grid attention/flash_attn_fwd_d64 softmax/softmax_bug_no_max; do
  "$bin" run "kernels/$c.tscfg.json" -o "$tmp/$(basename "$c").json" 2>/dev/null
done
# With hardware counters (the Speed of Light panel): the tiled GEMM against cuBLAS,
# and the bank-conflicting transpose.
"$bin" run kernels/gemm/gemm_tiled_f16.tscfg.json -o "$tmp/counters_gemm_tiled_f16.json" 2>/dev/null
"$bin" run kernels/transpose/transpose_bank_conflicts.tscfg.json -o "$tmp/counters_transpose_bank_conflicts.json" 2>/dev/null
for f in "$tmp"/*.json; do python3 tools/shrink_report.py "$f" "$dir/$(basename "$f")" 96; done
# A traced capture (what the workbench opens with no argument: the Source view's
# trace marks and its IR panes with the traced instructions marked, the measured
# footprints): the unmasked GEMM, kept whole, with its compiler stages.
"$bin" run --trace --stages kernels/gemm/gemm_bug_no_mask.tscfg.json -o "$dir/traced.json" 2>/dev/null
rm -rf "$tmp"
ls -la "$dir"
