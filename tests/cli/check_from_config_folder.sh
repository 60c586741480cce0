#!/usr/bin/env bash
# `check` run from the config's own folder, the config named without a folder, on
# an empty compile cache (docs/config.md#kernel: NVRTC's include paths were resolved
# against the working directory and cuda_fp16.h was not found; a warm cache hid it).
# Also with CUDA_HOME given relative to that folder.
set -uo pipefail
exe=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0

check_in_folder() {  # label, config (relative to kernels/), extra env...
  local label=$1 cfg=$2; shift 2
  local dir name
  dir=$(dirname "$src/kernels/$cfg"); name=$(basename "$cfg")
  rm -rf "$tmp/cache"; mkdir "$tmp/cache"
  (cd "$dir" && env TILESCOPE_CACHE_DIR="$tmp/cache" "$@" "$exe" check "$name" --device h100 -o "$tmp/$label.json" \
     2>"$tmp/$label.err"); local rc=$?
  if [ "$rc" -ge 2 ]; then echo "FAIL $label: exit $rc"; cat "$tmp/$label.err"; fail=1; return; fi
  if grep -q "cannot open source file" "$tmp/$label.err"; then echo "FAIL $label: an include was not found"; cat "$tmp/$label.err"; fail=1; fi
  python3 - "$tmp/$label.json" "$label" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
c = r["points"][0]["compile"]
if not (c.get("ok") and not c.get("cached") and c.get("regs", 0) > 0):
    sys.exit(f"FAIL {sys.argv[2]}: compile {json.dumps(c)[:400]}")
PY
  # The cache was empty: the compile really ran (and its cubin is now cached).
  [ -n "$(ls -A "$tmp/cache")" ] || { echo "FAIL $label: nothing was cached"; fail=1; }
}

check_in_folder softmax_f16 softmax/softmax_row_f16.tscfg.json
check_in_folder gemm gemm/gemm_tiled_f16.tscfg.json
root=${CUDA_HOME:-/usr/local/cuda}
if [ -d "$root/include" ]; then
  rel=$(python3 -c 'import os,sys; print(os.path.relpath(os.path.realpath(sys.argv[1]), sys.argv[2]))' "$root" "$src/kernels/softmax")
  check_in_folder softmax_relative_cuda_home softmax/softmax_row_f16.tscfg.json CUDA_HOME="$rel"
fi
[ "$fail" = 0 ] && echo "check from the config's folder: ok"
exit $fail
