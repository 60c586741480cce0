#!/usr/bin/env bash
# `tilescope-run compare CONFIG --toolchain A --toolchain B` (no GPU,
# docs/toolchains.md): a bundled CUDA C++ kernel under NVRTC and under nvcc -G
# (both compile, -G's registers and SASS differ, the first differing stage is
# named), --bisect over a list whose fourth toolchain fails to compile (the
# first bad one is found, its error given), and bad input: an unknown spec, a
# CUDA compiler for a Triton kernel, one toolchain, reports with --toolchain,
# a Triton version that does not install offline (named with what was tried).
# Skips (77) without the CUDA toolkit's compilers.
set -uo pipefail
exe=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TILESCOPE_TOOLCHAINS=$tmp/toolchains
command -v nvcc > /dev/null || { echo "SKIP: no nvcc"; exit 77; }
fail=0
cfg=$src/kernels/gemm/gemm_tiled_tail.tscfg.json
"$exe" compare "$cfg" --toolchain nvrtc --toolchain "nvcc -G" -o "$tmp/g.json" > "$tmp/g.txt" 2> "$tmp/g.err"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL nvrtc vs nvcc -G: exit $rc"; cat "$tmp/g.err"; fail=1; fi
python3 - "$tmp/g.json" "$tmp/g.txt" <<'PY' || fail=1
import json, sys
r, text = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
bad = []
a, b = r["sides"]
if not (a.get("compiled") and b.get("compiled")): bad.append(f"not both compiled: {a} {b}")
if a.get("compiler") != "nvrtc" or b.get("compiler") != "nvcc": bad.append(f"compilers {a.get('compiler')} {b.get('compiler')}")
if a.get("registers", 0) <= 0 or a.get("registers") == b.get("registers"): bad.append(f"registers {a.get('registers')} {b.get('registers')}")
st = {s["stage"]: s for s in r["diff"]["stages"]["stages"]}
if set(st) != {"ptx", "sass"}: bad.append(f"stages compared: {sorted(st)}")  # no Triton IR for CUDA C++
if r["first_differing_stage"] not in ("ptx", "sass"): bad.append(f"first differing {r['first_differing_stage']!r}")
if not st.get("sass", {}).get("differs"): bad.append("-G left the SASS unchanged")
if "first stage that differs: " + r["first_differing_stage"] not in text: bad.append("text lacks the first differing stage")
if r["schema"] != "tilescope.toolchains/1": bad.append(r["schema"])
for m in bad: print("FAIL nvrtc vs nvcc -G:", m)
sys.exit(1 if bad else 0)
PY

"$exe" compare "$cfg" --bisect "nvrtc,nvrtc -lineinfo,nvcc,nvrtc -bogus-flag,nvrtc -bogus-too" -o "$tmp/b.json" > "$tmp/b.txt" 2> "$tmp/b.err"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL bisect: exit $rc"; cat "$tmp/b.err"; fail=1; fi
python3 - "$tmp/b.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))["bisect"]
bad = []
if r.get("first_bad") != "nvrtc -bogus-flag": bad.append(f"first_bad {r.get('first_bad')!r}")
if r.get("last_good") != "nvcc": bad.append(f"last_good {r.get('last_good')!r}")
if len(r["tried"]) >= len(r["versions"]): bad.append(f"tried every version: {r['tried']}")
for m in bad: print("FAIL bisect:", m)
sys.exit(1 if bad else 0)
PY

expect_usage() {  # NAME MESSAGE-PART ARGS...
  local name=$1 want=$2; shift 2
  "$exe" compare "$@" > "$tmp/u.out" 2> "$tmp/u.err"
  local rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL $name: exit $rc (expected 2)"; cat "$tmp/u.err"; fail=1; return; fi
  grep -qF -- "$want" "$tmp/u.err" "$tmp/u.out" || { echo "FAIL $name: no '$want' in:"; cat "$tmp/u.err"; fail=1; }
}
tcfg=$src/kernels/triton/matmul_tail.tscfg.json
expect_usage "unknown spec" "toolchain 'gcc': unknown" "$cfg" --toolchain gcc --toolchain nvrtc
expect_usage "not a version" "not a version" "$cfg" --toolchain triton=3.5 --toolchain nvrtc
expect_usage "nvcc for Triton" "a CUDA C++ compiler, and matmul_tail is a triton kernel" "$tcfg" --toolchain nvcc --toolchain triton
expect_usage "one toolchain" "needs two toolchains" "$cfg" --toolchain nvrtc
expect_usage "reports" "compare one config" "$src/resources/sample/traced.json" "$src/resources/sample/traced.json" --toolchain nvrtc
expect_usage "missing config" "cannot open (no such file)" "$tmp/none.tscfg.json" --toolchain nvrtc --toolchain nvcc
expect_usage "a folder" "is a directory" "$src/kernels/gemm" --toolchain nvrtc --toolchain nvcc
expect_usage "bad option" "neither a compile option" "$cfg" --toolchain "nvcc O3" --toolchain nvrtc
# A version that does not install offline says so, naming what was tried; the
# other side still compiles (needs an interpreter with venv and pip).
if python3 -c "import venv, ensurepip" 2>/dev/null; then
  expect_usage "offline install" "did not install (tried" "$tcfg" --toolchain triton==0.0.1 --toolchain triton --offline
  grep -qF "pip install" "$tmp/u.out" || { echo "FAIL offline install: the command tried is not named"; cat "$tmp/u.out"; fail=1; }
  [ -e "$TILESCOPE_TOOLCHAINS/triton-0.0.1" ] && { echo "FAIL offline install: a half-made environment was kept"; fail=1; }
fi
# --run runs each side on the GPU: without one it exits 3 and says so.
if ! nvidia-smi > /dev/null 2>&1; then
  "$exe" compare "$cfg" --toolchain nvrtc --toolchain "nvcc -G" --run > "$tmp/r.out" 2> "$tmp/r.err"
  rc=$?
  [ $rc -eq 3 ] || { echo "FAIL --run without a GPU: exit $rc (expected 3)"; fail=1; }
  grep -qF "the run under nvrtc wrote no report" "$tmp/r.out" || { echo "FAIL --run without a GPU:"; cat "$tmp/r.out"; fail=1; }
fi
[ $fail -eq 0 ] && echo "toolchains: ok"
exit $fail
