#!/usr/bin/env bash
# `tilescope-run classify` on hostile input (docs/security.md, "Denial of service"): a directory,
# binary data, /dev/zero, invalid UTF-8 with --json, a 1 MB line, a 1 MB kernel name,
# a million error-like lines and a 50 MB log. Each gets a clear message (exit 2) or an
# answer in bounded time, never a crash.
set -uo pipefail
exe=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { if ! grep -qF -- "$2" <<<"$1"; then echo "FAIL $3: expected '$2' in:"; echo "$1" | head -20; fail=1; fi; }
# run NAME LIMIT ARGS...: exit status in $rc, stdout+stderr in $out; a signal or timeout fails
run() {
  local name=$1 limit=$2; shift 2
  out=$(timeout "$limit" "$exe" classify "$@" 2>&1); rc=$?
  if [ "$rc" -ge 124 ]; then echo "FAIL $name: exit $rc (timeout or signal)"; fail=1; fi
}

run directory 10 "$tmp"
[ "$rc" = 2 ] || { echo "FAIL directory: exit $rc (want 2)"; fail=1; }
check "$out" "is a directory, not a log file" directory

head -c 65536 /dev/urandom > "$tmp/random.bin"
run binary 10 "$tmp/random.bin"
[ "$rc" = 2 ] || { echo "FAIL binary: exit $rc (want 2)"; fail=1; }
check "$out" "is not a text log: binary data" binary

if [ -e /dev/zero ]; then
  run dev_zero 10 /dev/zero
  [ "$rc" = 2 ] || { echo "FAIL /dev/zero: exit $rc (want 2)"; fail=1; }
  check "$out" "binary data" /dev/zero
  out=$(head -c 100000000 /dev/zero | timeout 10 "$exe" classify - 2>&1); rc=$?
  [ "$rc" = 2 ] || { echo "FAIL /dev/zero on stdin: exit $rc (want 2)"; fail=1; }
fi

printf 'RuntimeError: CUDA error: an illegal memory access \xff\xfe was encountered\n' > "$tmp/utf8.log"
out=$(timeout 10 "$exe" classify --json "$tmp/utf8.log"); rc=$?
[ "$rc" = 0 ] || { echo "FAIL invalid UTF-8 --json: exit $rc (want 0)"; fail=1; }
got=$(python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["category"], j["log"]["invalid_utf8_replaced"])' <<<"$out")
[ "$got" = "illegal_address 2" ] || { echo "FAIL invalid UTF-8 --json: got '$got'"; fail=1; }

python3 -c "print('x' * (1 << 20) + ' an illegal memory access was encountered'); print('RuntimeError: CUDA error: an illegal memory access was encountered')" > "$tmp/longline.log"
run long_line 20 "$tmp/longline.log"
[ "$rc" = 0 ] || { echo "FAIL 1 MB line: exit $rc (want 0)"; fail=1; }
check "$out" "category:   illegal_address" long_line

python3 - "$tmp/longkernel.log" <<'PY'
import sys
name = "_ZN" + "5outer" * 200000 + "E"
with open(sys.argv[1], "w") as f:
    f.write("========= Invalid __global__ write of size 4 bytes\n")
    f.write("=========     at " + name + "+0x70 in k.cu:12\n")
    f.write("=========     by thread (0,0,0) in block (0,0,0)\n")
    f.write("=========     Address 0x10 is out of bounds\n")
PY
run long_kernel_name 20 --json "$tmp/longkernel.log"
[ "$rc" = 0 ] || { echo "FAIL 1 MB kernel name: exit $rc (want 0)"; fail=1; }
check "$out" '"category": "oob_write"' long_kernel_name

python3 -c "
import sys
w = sys.stdout.write
for i in range(1000000): w('RuntimeError: CUDA error %d: unspecified failure at step %d\n' % (i, i))
w('RuntimeError: CUDA error: an illegal memory access was encountered\n')" > "$tmp/million.log"
start=$(date +%s)
run million_lines 120 "$tmp/million.log"
[ "$rc" = 0 ] || { echo "FAIL million lines: exit $rc (want 0)"; fail=1; }
check "$out" "category:   illegal_address" million_lines
check "$out" "in the middle not examined" million_lines
echo "million lines: $(( $(date +%s) - start )) s"

python3 -c "
import sys
w = sys.stdout.write
n = 0; i = 0
while n < 50 * 1024 * 1024:
    s = 'worker %d reported progress %d of the shard\n' % (i % 977, i); w(s); n += len(s); i += 1
w('triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: 101376.\n')" > "$tmp/fifty.log"
start=$(date +%s)
run fifty_mb 120 "$tmp/fifty.log"
[ "$rc" = 0 ] || { echo "FAIL 50 MB log: exit $rc (want 0)"; fail=1; }
check "$out" "category:   smem_exceeded" fifty_mb
echo "50 MB log: $(( $(date +%s) - start )) s"

[ "$fail" = 0 ] && echo "classify bad-input CLI ok"
exit $fail
