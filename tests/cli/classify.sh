#!/usr/bin/env bash
# `tilescope-run classify`: two corpus logs through stdin and a file, text and JSON
# output, the exit statuses (0 classified, 1 unknown, 2 missing file).
set -uo pipefail
exe=$1; src=$2
corpus="$src/tests/data/classify"
fail=0
check() { if ! grep -qF -- "$2" <<<"$1"; then echo "FAIL $3: expected '$2' in:"; echo "$1"; fail=1; fi; }

out=$("$exe" classify - < "$corpus/seed000_arange.txt"); rc=$?
[ "$rc" = 0 ] || { echo "FAIL stdin arange: exit $rc"; fail=1; }
check "$out" "category:   compile_error" "stdin arange"
check "$out" "tree node:  compile.triton.arange_constexpr" "stdin arange"
check "$out" "matched:    CompilationError: arange's arguments must be of type tl.constexpr" "stdin arange"

out=$("$exe" classify --json "$corpus/seed002_misaligned.txt"); rc=$?
[ "$rc" = 0 ] || { echo "FAIL json misaligned: exit $rc"; fail=1; }
got=$(python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["category"], j["tree_node"], j["classified"])' <<<"$out")
[ "$got" = "misaligned_access fault.misaligned_access True" ] || { echo "FAIL json misaligned: got '$got'"; echo "$out"; fail=1; }

out=$(printf 'all tests passed\n' | "$exe" classify -); rc=$?
[ "$rc" = 1 ] || { echo "FAIL unknown log: exit $rc (want 1)"; fail=1; }
check "$out" "unknown" "unknown log"

# A sanitizer report: the findings and the decisive lines are printed, --json carries them.
out=$("$exe" classify "$corpus/rec_memcheck_gemm_no_mask.txt"); rc=$?
[ "$rc" = 0 ] || { echo "FAIL memcheck: exit $rc"; fail=1; }
check "$out" "category:   oob_write" "memcheck"
check "$out" "in gemm_tiled+0x1e40, thread (32,0,0) block (7,15,0)" "memcheck finding"
check "$out" "15,393 bytes after an allocation of 8,131,072 bytes (3 reports)" "memcheck allocation"
check "$out" "decisive lines:" "memcheck evidence"
out=$("$exe" classify --json "$corpus/rec_memcheck_gemm_no_mask.xml")
got=$(python3 -c 'import json,sys; j=json.load(sys.stdin); f=j["sanitizer"]["findings"][0]; print(j["category"], f["kind"], f["access"], f["space"], f["size"], f["pc"], f["block"])' <<<"$out")
[ "$got" = "oob_write out_of_bounds write global 2 0x1e40 [7, 15, 0]" ] || { echo "FAIL memcheck xml json: got '$got'"; fail=1; }

# Below the threshold: unknown, with the nearest candidate and its line.
out=$(printf 'step 1\nValueError: bad BLOCK_SIZE\n' | "$exe" classify -); rc=$?
[ "$rc" = 1 ] || { echo "FAIL below threshold: exit $rc (want 1)"; fail=1; }
check "$out" "nearest candidates:" "below threshold"
check "$out" "compile.python.other" "below threshold"
check "$out" "      2: ValueError: bad BLOCK_SIZE" "below threshold"

"$exe" classify "$corpus/does-not-exist.txt" >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || { echo "FAIL missing file: exit $rc (want 2)"; fail=1; }

[ "$fail" = 0 ] && echo "classify CLI ok"
exit $fail
