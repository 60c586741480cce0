#!/usr/bin/env bash
# `tilescope-run compare` (docs/compare.md) on the bundled samples: two reports,
# two points of one sweep, a report against itself, every output format, and the
# inputs a tired user gives it (a missing file, a config, a point out of range).
# Expected figures come from the reports themselves (python3), never written here.
set -uo pipefail
exe=$1
src=$2
s="$src/resources/sample"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { if ! grep -qF -- "$2" <<<"$1"; then echo "FAIL $3: expected '$2' in:"; echo "$1" | head -20; fail=1; fi; }
want_rc() { [ "$rc" = "$1" ] || { echo "FAIL $2: exit $rc (want $1)"; echo "$out" | head -10; fail=1; }; }

# Two reports: the text table, the findings that appeared.
out=$("$exe" compare "$s/gemm_bug_no_mask.json" "$s/traced.json" 2>&1); rc=$?
want_rc 0 two_reports
check "$out" "kernel median" two_reports
check "$out" "appeared   oob_read" two_reports
check "$out" "Error maps (" two_reports

# JSON: the deltas match the reports' own numbers.
"$exe" compare "$s/gemm_bug_no_mask.json" "$s/traced.json" -o "$tmp/c.json" >/dev/null 2>"$tmp/err"; rc=$?
want_rc 0 json_file
got=$(python3 - "$tmp/c.json" "$s/gemm_bug_no_mask.json" "$s/traced.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2])); b = json.load(open(sys.argv[3]))
row = {v["key"]: v for v in d["timing"]["values"]}["kernel_ns.median"]
ok = (d["schema"] == "tilescope.compare/1"
      and row["a"] == a["points"][0]["timing"]["kernel_ns"]["median"]
      and row["b"] == b["points"][0]["timing"]["kernel_ns"]["median"]
      and any(f["change"] == "appeared" and f["category"] == "oob_read" for f in d["findings"]))
print("ok" if ok else "bad: %s" % row)
PY
)
[ "$got" = ok ] || { echo "FAIL json deltas: $got"; fail=1; }

# Two points of one sweep, as Markdown and HTML on stdout.
out=$("$exe" compare "$s/gemm_sweep.json" --point-a 0 --point-b 3 2>&1); rc=$?
want_rc 0 sweep_points
label=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"]; print("#3 of %d (%s)" % (len(p), p[3]["label"]))' "$s/gemm_sweep.json")
check "$out" "$label" sweep_points
check "$out" "warning: different defines or params" sweep_points
out=$("$exe" compare "$s/gemm_sweep.json" --point-a 0 --point-b 3 --format md 2>/dev/null); rc=$?
want_rc 0 sweep_points_md
check "$out" "| kernel median |" sweep_points_md
out=$("$exe" compare "$s/gemm_sweep.json" --point-a 0 --point-b 3 --format html 2>/dev/null); rc=$?
want_rc 0 sweep_points_html
check "$out" "<table" sweep_points_html

# A report against itself: no timing delta.
out=$("$exe" compare "$s/counters_gemm_tiled_f16.json" "$s/counters_gemm_tiled_f16.json" --format json 2>&1); rc=$?
want_rc 0 itself
got=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(1 for v in d["timing"]["values"]+d["counters"]["metrics"] if v.get("a")!=v.get("b")), {f["change"] for f in d["findings"]})' <<<"$out")
[ "$got" = "0 {'same'}" ] || { echo "FAIL itself: $got"; fail=1; }

# Different kernels: allowed, with a warning naming both.
out=$("$exe" compare "$s/gemm_bug_no_mask.json" "$s/softmax_bug_no_max.json" 2>&1 >/dev/null); rc=$?
want_rc 0 other_kernel
check "$out" "warning: different kernels" other_kernel

# Bad input: exit 2, the file and the problem named.
out=$("$exe" compare "$tmp/missing.json" "$s/traced.json" 2>&1); rc=$?
want_rc 2 missing
check "$out" "missing.json: no such file" missing
out=$("$exe" compare "$s/gemm_sweep.json" --point-a 0 --point-b 99 2>&1); rc=$?
want_rc 2 out_of_range
check "$out" "gemm_sweep.json: --point-b 99 out of range" out_of_range
out=$("$exe" compare "$s/gemm_sweep.json" 2>&1); rc=$?
want_rc 2 one_report
check "$out" "--point-a" one_report
echo '{"not": "a report"}' >"$tmp/other.json"
out=$("$exe" compare "$s/traced.json" "$tmp/other.json" 2>&1); rc=$?
want_rc 2 not_a_report
check "$out" "other.json" not_a_report
cfg=$(ls "$src"/kernels/gemm/*.tscfg.json | head -1)
out=$("$exe" compare "$cfg" "$s/traced.json" 2>&1); rc=$?
want_rc 2 config
check "$out" "a config, not a report" config
check "$out" "--toolchain" config
out=$("$exe" compare "$s/traced.json" "$s/traced.json" -o "$tmp/c.pdf" 2>&1); rc=$?
want_rc 2 pdf_output
check "$out" "c.pdf" pdf_output
out=$("$exe" compare "$tmp" "$s/traced.json" 2>&1); rc=$?
want_rc 2 directory
check "$out" "a directory" directory
exit $fail
