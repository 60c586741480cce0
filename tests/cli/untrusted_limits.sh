#!/usr/bin/env bash
# A config from anyone runs nothing (docs/security.md, "What is not trusted"): the reproducers other than the
# nvcc and Python ones (nvcc_injection.sh, triton_sandbox.sh), each a case that
# failed before its fix. Inputs are in tests/data/issue31 (copied from the
# reproducers) or made here.
#   N3  a source that makes nvcc print 1.2 GB: the report keeps 1 MiB (start and end)
#   N5  check's total time is bounded (--check-timeout), with a note naming it
#   N6  a million-CTA non-affine tiling is evaluated in seconds (was 20 s)
#   N7  run --remote --allow-commands runs the command baseline on the host
#   N11 a NUL in a key is escaped in the message, which goes on after it
#   N12 init-triton never writes through a symlink at its output name
#   N13 a report number that overflows names its JSON path
#   N14 classify - reads a pipe past 512 MiB to the error at its end
#   N16 tensors larger than the device's memory are a finding of check
#   N17 run refuses an outside .npy without opening it (strace, where installed)
set -uo pipefail
exe=$(realpath "$1"); src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The configs name their kernels beside them (the folder rule): the zoo's, copied in.
data="$tmp/data"
cp -r "$src/tests/data/issue31" "$data"
cp "$src/kernels/gemm/gemm_tiled.cu" "$src/kernels/attention/flash_attn_fwd.cu" \
  "$src/kernels/gate/highway_gate.cu" "$data/"
export TILESCOPE_CACHE_DIR="$tmp/cache"
fail=0
say() { echo "FAIL: $*"; fail=1; }
have_nvcc() { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }
elapsed() { echo $(( $(date +%s) - $1 )); }

# --- N3 ------------------------------------------------------------------------
if have_nvcc; then
  t0=$(date +%s)
  "$exe" check "$data/nvcc_table12k.tscfg.json" -o "$tmp/n3.json" >/dev/null 2>&1
  [ "$(elapsed "$t0")" -lt 120 ] || say "N3: nvcc check took $(elapsed "$t0") s"
  size=$(stat -c %s "$tmp/n3.json" 2>/dev/null || echo 0)
  [ "$size" -gt 0 ] && [ "$size" -lt 3000000 ] || say "N3: report of $size bytes"
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]; log=p["compile"]["log"]
sys.exit(0 if p["verdict"]=="compile_error" and "output cut" in log and any("table.cu:2" in f["message"] for f in p["findings"]) else 1)' \
    "$tmp/n3.json" 2>/dev/null || say "N3: the error at the log's end, or the note of the cut, is missing"
fi

# --- N5 ------------------------------------------------------------------------
if have_nvcc; then
  t0=$(date +%s)
  "$exe" check "$data/sweep4_slow_compile.tscfg.json" --compile-timeout 4 --check-timeout 3 >/dev/null 2>"$tmp/n5.err"
  [ "$(elapsed "$t0")" -le 12 ] || say "N5: 4 points x 4 s took $(elapsed "$t0") s with --check-timeout 3"
  grep -q -- "--check-timeout" "$tmp/n5.err" || { say "N5: no note of the limit"; tail -3 "$tmp/n5.err"; }
fi

# --- N6 ------------------------------------------------------------------------
t0=$(date +%s)
timeout 60 "$exe" check --no-compile "$data/nonaffine_1M_ctas.tscfg.json" >/dev/null 2>&1; rc=$?
[ "$rc" -le 1 ] || say "N6: exit $rc"
[ "$(elapsed "$t0")" -le 10 ] || say "N6: 1M non-affine CTAs took $(elapsed "$t0") s"

# --- N7 ------------------------------------------------------------------------
mkdir -p "$tmp/n7/bin" "$tmp/n7/cfg"
cp "$src/kernels/gate/highway_gate.cu" "$tmp/n7/cfg/"
python3 - "$src/kernels/gate/highway_gate.tscfg.json" "$tmp/n7/cfg/b.tscfg.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("reference", None); d["reference"] = {"op": "none"}
d["baseline"] = {"command": "touch ran_here; echo '{\"median_ns\": 1000}'"}
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
# A stand-in ssh: runs staging, cleanup and the baseline's /bin/sh line (in a
# "host" folder of its own), and answers a worker with a timed point.
cat > "$tmp/n7/bin/ssh" <<'SSH'
#!/usr/bin/env python3
import json, os, subprocess, sys
args = sys.argv[1:]; rest = args[args.index("--") + 2:]; cmd = " ".join(rest)
open(os.environ["SSH_LOG"], "a").write(json.dumps(rest) + "\n")
if rest[0] != "tilescope-run":
    sys.exit(subprocess.call(["sh", "-c", cmd], cwd=os.environ["HOST_HOME"]))
S = "tilescope.stream/1"
point = {"index": 0, "trial": 0, "verdict": "ok", "findings": [],
         "timing": {"measured": True, "kernel_ns": {"median": 2000.0, "p10": 1900.0, "p90": 2100.0, "min": 1800.0, "n": 5}}}
for req in sys.stdin:
    print(json.dumps({"schema": S, "event": "point", "point": point}), flush=True)
SSH
chmod +x "$tmp/n7/bin/ssh"; mkdir -p "$tmp/n7/host"
(cd "$tmp/n7/cfg" && SSH_LOG="$tmp/n7/ssh.log" HOST_HOME="$tmp/n7/host" PATH="$tmp/n7/bin:$PATH" \
  "$exe" run b.tscfg.json --remote gpuhost --allow-commands -o "$tmp/n7.json" >"$tmp/n7.err" 2>&1)
[ -e "$tmp/n7/cfg/ran_here" ] && say "N7: the command baseline ran on this machine"
grep -q "/bin/sh -c" "$tmp/n7/ssh.log" 2>/dev/null || { say "N7: the baseline did not go through ssh"; cat "$tmp/n7.err"; }
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]; sys.exit(0 if p.get("baseline",{}).get("kernel_ns",{}).get("median")==1000 else 1)' \
  "$tmp/n7.json" 2>/dev/null || say "N7: the host's baseline median is not in the report"

# --- N11 -----------------------------------------------------------------------
"$exe" check --no-compile "$data/nul_key.tscfg.json" 2>"$tmp/n11.err"
grep -q 'seed\\u0000"\]: unknown key' "$tmp/n11.err" || { say "N11: message"; od -c "$tmp/n11.err" | head -5; }

# --- N12 -----------------------------------------------------------------------
mkdir -p "$tmp/n12"
cp "$src/kernels/triton/add.py" "$tmp/n12/"
ln -s "$tmp/n12/target_created.txt" "$tmp/n12/add_add_kernel.tscfg.json"
(cd "$tmp/n12" && "$exe" init-triton add.py::add_kernel >/dev/null 2>"$tmp/n12.err"); rc=$?
[ "$rc" = 2 ] || say "N12: init-triton through a dangling symlink: exit $rc, want 2"
[ -e "$tmp/n12/target_created.txt" ] && say "N12: the symlink's target was created"
grep -q "symbolic link" "$tmp/n12.err" || { say "N12: no reason"; cat "$tmp/n12.err"; }

# --- N13 -----------------------------------------------------------------------
"$exe" export "$data/report_1e400.report.txt" --format md >/dev/null 2>"$tmp/n13.err"
grep -q 'points\[0\].wall_s' "$tmp/n13.err" || { say "N13: no JSON path"; cat "$tmp/n13.err"; }

# --- N14 -----------------------------------------------------------------------
out=$( { yes "[000001] step 1 loss=0.5 lr=3e-4 grad_norm=1.2 tokens/s=12345" | head -c 600000000
         echo "RuntimeError: CUDA error: an illegal memory access was encountered"; } | "$exe" classify - 2>&1 | head -3)
grep -q "illegal_address" <<<"$out" || { say "N14: a 600 MB pipe lost its last line"; echo "$out"; }

# --- N16 -----------------------------------------------------------------------
"$exe" check --no-compile "$data/tensor_1tib_i64.tscfg.json" -o "$tmp/n16.json" >/dev/null 2>&1; rc=$?
[ "$rc" = 1 ] || say "N16: 4 TiB of tensors on an H100: exit $rc, want 1"
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["findings"]; sys.exit(0 if any(x.get("detail")=="out_of_memory" for x in f) else 1)' \
  "$tmp/n16.json" 2>/dev/null || say "N16: no out_of_memory finding"

# --- N17 -----------------------------------------------------------------------
mkdir -p "$tmp/n17/cfg" "$tmp/n17/outside"
python3 -c 'import sys; h=b"{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: (1024,), }"; h=h+b" "*(118-len(h))+b"\n"
open(sys.argv[1],"wb").write(b"\x93NUMPY\x01\x00"+len(h).to_bytes(2,"little")+h+b"\x00"*4096)' "$tmp/n17/outside/x.npy"
cp "$src/kernels/gate/highway_gate.cu" "$tmp/n17/cfg/"
python3 - "$src/kernels/gate/highway_gate.tscfg.json" "$tmp/n17/cfg/npy.tscfg.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("reference", None); d["reference"] = {"op": "none"}
d["params"]["N"] = 1024; d["tensors"]["x"]["init"] = "npy:../outside/x.npy"
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
for verb in check run diagnose; do
  if command -v strace >/dev/null; then
    strace -f -e trace=open,openat -o "$tmp/n17.strace" "$exe" $verb "$tmp/n17/cfg/npy.tscfg.json" >/dev/null 2>"$tmp/n17.err"; rc=$?
    grep -q 'x\.npy' "$tmp/n17.strace" && say "N17: $verb opened the outside .npy before refusing it"
  else
    "$exe" $verb "$tmp/n17/cfg/npy.tscfg.json" >/dev/null 2>"$tmp/n17.err"; rc=$?
  fi
  [ "$rc" = 2 ] || say "N17: $verb: exit $rc, want 2"
  grep -q -- "--allow-outside-paths" "$tmp/n17.err" || { say "N17: $verb: no reason"; cat "$tmp/n17.err"; }
done

[ "$fail" = 0 ] && echo "untrusted-config limit cases ok"
exit $fail
