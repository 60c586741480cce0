#!/usr/bin/env bash
# `tilescope-run capture` on real programs, on a GPU host (docs/capture.md):
#   triton    a PyTorch program with the zoo's buggy Triton add (BUG_NO_STORE_MASK)
#   inductor  a torch.compile'd function (Inductor's Triton kernels)
#   cuda      a plain CUDA C++ program built with nvcc (two kernels, runtime API)
#   structs   a CUDA C++ program whose kernels take a Params struct by value
#   cupy      a CUDA kernel launched from Python (CuPy RawKernel)
#   liger     a training step on Liger-Kernel's Triton ops (PyPI liger-kernel:
#             pip install it, or put its wheel on PYTHONPATH), PyTorch's own
#             kernels beside them (structs by value, cuBLAS, SDPA, AdamW)
#   misaligned a CUDA C++ program whose float4 copy on `src + 1` faults
#   tilelang  a TileLang program (PyPI tilelang; its JIT compiles kernels/tilelang/gemm.py
#             for the GPU's own architecture: on Hopper, TMA descriptors by value)
#   tilelang80 the same program compiled for sm_80 (cp.async, mma.sync, plain pointers)
# Each is captured; every config it gives is replayed with `run` (the replay
# must reproduce the program's output bytes: verdict ok, 0 mismatches under
# tolerance 0; bench/capture_table.py counts them) and the healthy ones are
# diagnosed (CAPTURE_DIAGNOSE lists the programs; every error finding on a
# healthy kernel is a false one), the buggy Triton one too. Then the overhead
# of capture on the program's run time beside ncu --set basic and
# compute-sanitizer.
# Usage: bench/gpu_capture_programs.sh BUILD_DIR [OUT]   (prints a table last)
# CAPTURE_ONLY="triton cuda" limits the programs; CAPTURE_OVERHEAD="cuda" the
# overhead runs ("" for none); CAPTURE_DIAGNOSE_ONLY=REGEX diagnoses only the
# healthy kernels whose name matches.
# The captures are made in a scratch folder ($CAPTURE_WORK, default under /tmp);
# OUT receives capture.tgz (records, configs, reports and logs, no .npy or
# images) and the table, capture-summary.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
final=${2:-${OUT:-gpu-out}}
out=${CAPTURE_WORK:-$(mktemp -d /tmp/tilescope-capture-bench.XXXXXX)}
run=$PWD/$build/app/tilescope-run
mkdir -p "$out" "$final"
here=$PWD/bench/capture
py=${PYTHON:-python3}
nvcc -O2 -lineinfo -o "$out/saxpy_rows" "$here/saxpy_rows.cu" || echo "nvcc failed"
nvcc -O2 -lineinfo -o "$out/params_struct" "$here/params_struct.cu" || echo "nvcc failed (params_struct)"
nvcc -O2 -lineinfo -o "$out/misaligned_vec4" "$here/misaligned_vec4.cu" || echo "nvcc failed (misaligned)"

now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }

declare -A progs=(
  [triton]="$py $here/triton_add_bug.py 1000"
  [inductor]="$py $here/compiled_fn.py 512"
  [cuda]="$out/saxpy_rows 1048576"
  [structs]="$out/params_struct 65536"
  [cupy]="$py $here/cupy_kernel.py 100000"
  [liger]="$py $here/liger_step.py 2"
  [misaligned]="$out/misaligned_vec4 4096"
  [tilelang]="$py $here/tilelang_gemm.py 1024"
  [tilelang80]="$py $here/tilelang_gemm.py 1024 sm_80")
all="triton inductor cuda structs cupy liger misaligned tilelang tilelang80"
summary=()
for name in ${CAPTURE_ONLY:-$all}; do
  cmd=${progs[$name]}
  rm -rf "$out/$name"
  t0=$(now)
  "$run" capture -o "$out/$name" -- $cmd > "$out/$name.capture.log" 2>&1
  rc=$?
  t1=$(now)
  diag=()
  [[ " ${CAPTURE_DIAGNOSE-inductor cuda structs cupy liger tilelang tilelang80} " == *" $name "* ]] && diag=(--diagnose)
  row=$("$py" bench/capture_table.py "$run" "$out/$name" "$name" --jobs "${CAPTURE_JOBS:-4}" "${diag[@]}" \
        --faulty '^(add_kernel|copy4)$' --diagnose-only "${CAPTURE_DIAGNOSE_ONLY:-}" --diagnose-budget "${DIAGNOSE_BUDGET:-240}" 2>&1)
  line="$row"$'\n'"    capture rc=$rc, $(secs "$t0" "$t1") s"
  summary+=("$line")
done

# The buggy Triton launch: diagnose names the bytes and the line.
cfg=$(ls "$out/triton"/add_kernel*.tscfg.json 2>/dev/null | head -1)
if [ -n "$cfg" ]; then
  "$run" diagnose "$cfg" --allow-commands -o "$out/triton/diagnose.json" > "$out/triton/diagnose.log" 2>&1
  d=$("$py" - "$out/triton/diagnose.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["findings"][0] if r.get("findings") else {}
loc = f.get("location", {})
print(f'{r["verdict"]}: first finding {f.get("category")} at {loc.get("file", "?")}:{loc.get("line", "?")} -- {f.get("message", "")[:160]}')
PY
)
  summary+=("triton diagnose: $d")
fi

# Overhead on the program's own run time (wall clock, one run each).
for name in ${CAPTURE_OVERHEAD-cuda structs liger}; do
  cmd=${progs[$name]}
  t0=$(now); $cmd > /dev/null 2>&1; t1=$(now)
  rm -rf "$out/oh-$name"; "$run" capture -o "$out/oh-$name" -- $cmd > /dev/null 2>&1; t2=$(now)
  ncu --set basic -o "$out/oh-$name-ncu" -f $cmd > "$out/oh-$name-ncu.log" 2>&1; t3=$(now)
  compute-sanitizer --tool memcheck $cmd > "$out/oh-$name-san.log" 2>&1; t4=$(now)
  summary+=("overhead $name: alone $(secs "$t0" "$t1") s, capture $(secs "$t1" "$t2") s, ncu --set basic $(secs "$t2" "$t3") s, compute-sanitizer $(secs "$t3" "$t4") s")
done

# Fixtures for the CPU tests and the evidence: records, capture.json, configs,
# reports and logs (no .npy, no module images).
(cd "$out" && tar czf "$final/capture.tgz" --exclude='*.npy' --exclude='*.cubin' --exclude='*-ncu.ncu-rep' \
   ${CAPTURE_ONLY:-$all} ./*.log ./*.table.json 2>/dev/null)
printf '%s\n' "${summary[@]}" | tee "$final/capture-summary.txt"
