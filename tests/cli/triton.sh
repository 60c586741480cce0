#!/usr/bin/env bash
# `tilescope-run check` on every Triton config of the zoo (no GPU): each compiles
# for the H100's sm_90 through the Triton helper, its report carries Triton's
# launch (block 32·num_warps, Triton's shared memory as the launch's dynamic
# shared memory, occupancy from the cubin's registers), and the two compile-error
# variants give compile_error findings at their .py lines with the tree's fix.
# Then `init-triton` starts a config for each zoo kernel that `check` accepts.
set -uo pipefail
exe=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
for cfg in "$src"/kernels/triton/*.tscfg.json; do
  name=$(basename "$cfg" .tscfg.json)
  "$exe" check "$cfg" --device h100 -o "$tmp/$name.json" 2>"$tmp/$name.err"
  rc=$?
  if [ "$rc" -ge 2 ]; then echo "FAIL check $name: exit $rc"; cat "$tmp/$name.err"; fail=1; continue; fi
  python3 - "$cfg" "$tmp/$name.json" "$rc" <<'PY' || fail=1
import json, sys, os
cfg_path, report_path, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
cfg, rep = json.load(open(cfg_path)), json.load(open(report_path))
name = os.path.basename(cfg_path)
bad = []
src = os.path.join(os.path.dirname(cfg_path), cfg["kernel"]["source"])
lines = open(src).read().split("\n")
def line_of(text):
    return next(i + 1 for i, l in enumerate(lines) if text in l)
errors = {"matmul_bug_dot_shape": ("acc = tl.dot(a, b, acc)", "compile.triton.dot_shape"),
          "row_sum_bug_dynamic_arange": ("base + k + tl.arange(0, cur_K)", "compile.triton.arange_constexpr")}
key = name[:-len(".tscfg.json")]
for p in rep["points"]:
    if key in errors:
        text, node = errors[key]
        f = [f for f in p["findings"] if f["category"] == "compile_error"]
        if p["verdict"] != "compile_error" or not f:
            bad.append("expected a compile_error, verdict %s" % p["verdict"]); continue
        f = f[0]
        if f["location"].get("line") != line_of(text): bad.append("line %s, expected %d" % (f["location"].get("line"), line_of(text)))
        if f.get("tree_node") != node: bad.append("tree node %s, expected %s" % (f.get("tree_node"), node))
        if not f["evidence"].get("fix") or f["evidence"].get("example", {}).get("language") != "triton":
            bad.append("no Triton fix in the evidence")
        if rc != 1: bad.append("exit %d for a compile error" % rc)
        continue
    c = p["compile"]
    if not c.get("ok"): bad.append("point %s did not compile: %s" % (p.get("label"), c.get("log", "")[:400])); continue
    t = p.get("extra", {}).get("triton")
    if not t: bad.append("no extra.triton metadata"); continue
    warps = p["defines"].get("num_warps")
    if p["launch"]["block"][0] != 32 * warps or t["num_warps"] != warps:
        bad.append("block %s for num_warps %s" % (p["launch"]["block"], warps))
    if p["launch"]["shared_bytes"] != t["shared"]: bad.append("launch shared %s != Triton's %s" % (p["launch"]["shared_bytes"], t["shared"]))
    if not (c.get("regs", -1) > 0): bad.append("no registers from the cubin")
    occ = p.get("occupancy", {})
    if not occ.get("computed") or occ.get("regs_per_thread") != c["regs"]: bad.append("occupancy without the cubin's registers: %s" % occ)
if bad:
    print("FAIL check %s: %s" % (name, "; ".join(bad))); sys.exit(1)
print("ok   check %s (%d point(s), exit %d)" % (name, len(rep["points"]), rc))
PY
  n=$((n + 1))
done
[ "$n" -ge 15 ] || { echo "FAIL: only $n Triton configs checked"; fail=1; }

# init-triton: a started config loads and checks (exit 0 or 1, never 2).
for target in add.py::add_kernel matmul.py::matmul_kernel softmax.py::softmax_kernel row_sum.py flash_attn.py::flash_attn_fwd_kernel; do
  out="$tmp/init_${target%%.*}.tscfg.json"
  if ! "$exe" init-triton "$src/kernels/triton/$target" -o "$out" 2>"$tmp/init.err"; then
    echo "FAIL init-triton $target"; cat "$tmp/init.err"; fail=1; continue
  fi
  # The started config lives in a temporary folder, the kernel in the zoo.
  "$exe" check "$out" --device h100 --allow-outside-paths >/dev/null 2>"$tmp/check.err"; rc=$?
  if [ "$rc" -ge 2 ]; then echo "FAIL check of init-triton $target: exit $rc"; cat "$tmp/check.err"; fail=1; continue; fi
  echo "ok   init-triton $target (check exit $rc)"
done
# Bad targets say what is wrong.
"$exe" init-triton "$src/kernels/triton/add.py::nope" -o "$tmp/x.json" 2>"$tmp/e1"; rc=$?
[ "$rc" = 2 ] && grep -q "no function 'nope'.*add_kernel" "$tmp/e1" || { echo "FAIL init-triton unknown kernel: exit $rc"; cat "$tmp/e1"; fail=1; }
"$exe" init-triton "$src/kernels/triton/missing.py::k" 2>"$tmp/e2"; rc=$?
[ "$rc" = 2 ] && grep -q "no such file" "$tmp/e2" || { echo "FAIL init-triton missing file: exit $rc"; fail=1; }
exit $fail
