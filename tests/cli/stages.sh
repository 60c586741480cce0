#!/usr/bin/env bash
# `tilescope-run check --stages` (no GPU): a bundled CUDA C++ kernel gets its PTX
# and SASS, a Triton kernel its TTIR, TTGIR, LLIR, PTX and SASS, each with lines
# mapped to the kernel's source lines, the stages a compiler does not make listed
# absent with a reason, the per-line SASS summary (the Triton matmul's cp.async
# 16-byte loads and HGMMA tensor-core instructions), the size cap, and the
# exports' SASS block under a finding that names a line. Skips (77) without
# nvdisasm, and the Triton half without Triton.
set -uo pipefail
exe=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # NAME CONFIG EXPECTED_PRESENT_STAGES
  "$exe" check "$2" --device h100 --stages -o "$tmp/$1.json" 2>"$tmp/$1.err"
  local rc=$?
  if [ "$rc" -ge 2 ]; then echo "FAIL check --stages $1: exit $rc"; cat "$tmp/$1.err"; fail=1; return; fi
  python3 - "$tmp/$1.json" "$1" "$3" <<'PY' || fail=1
import json, os, sys
report, name, want = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3].split(",")
bad = []
st = report["points"][0].get("stages")
if st is None:
    print(f"FAIL {name}: no stages section"); sys.exit(1)
sass = next((s for s in st["stages"] if s["name"] == "sass"), None)
if sass is not None and not sass["present"] and "nvdisasm not found" in sass.get("absent", ""):
    print(f"SKIP {name}: {sass['absent']}"); sys.exit(0)
names = [s["name"] for s in st["stages"]]
if sorted(names) != sorted(["ttir", "ttgir", "llir", "ptx", "sass"]):
    bad.append(f"stages {names}")
src = os.path.realpath(report["config"]["kernel"]["source"]) if os.path.isabs(report["config"]["kernel"]["source"]) else None
for s in st["stages"]:
    if s["name"] in want:
        if not s["present"]:
            bad.append(f"{s['name']} absent: {s.get('absent')}"); continue
        if not s["text"] or not s["spans"]:
            bad.append(f"{s['name']}: no text or no line mapping")
        if len(s["text"].encode()) > st["max_stage_bytes"]:
            bad.append(f"{s['name']}: {len(s['text'])} bytes over the cap")
        if s["bytes"] > st["max_stage_bytes"] and not s.get("clipped"):
            bad.append(f"{s['name']}: long but not clipped")
        nlines = s["text"].count("\n")
        for first, last, file, line in s["spans"]:
            if not (1 <= first <= last <= nlines) or line <= 0 or not file:
                bad.append(f"{s['name']}: bad span {[first, last, file, line]}"); break
        kernel_file = os.path.basename(report["config"]["kernel"]["source"])
        if not any(os.path.basename(f) == kernel_file for _, _, f, _ in s["spans"]):
            bad.append(f"{s['name']}: no line maps to {kernel_file}")
    elif s["present"] or not s.get("absent"):
        bad.append(f"{s['name']}: should be absent with a reason")
lines = st["lines"]
if not lines or sum(l["sass"] for l in lines) == 0:
    bad.append("no per-line SASS summary")
if not any(l.get("global_loads") for l in lines) or not any(l.get("global_stores") for l in lines):
    bad.append("no line with global loads and stores")
if name == "triton_matmul":
    if not any(l.get("tensor") for l in lines):
        bad.append("the Triton matmul has no tensor-core instruction on any line")
    if not any(w == 16 for l in lines for w, _ in l.get("global_loads", [])):
        bad.append("the Triton matmul has no 16-byte global load")
if name == "gemm":
    # f16 elements loaded one at a time: LDG.E.U16, 2 bytes (not vectorised)
    if not any(w == 2 for l in lines for w, _ in l.get("global_loads", [])):
        bad.append("gemm_tiled_f16 has no 2-byte global load")
for b in bad:
    print(f"FAIL {name}: {b}")
sys.exit(1 if bad else 0)
PY
}
check gemm "$src/kernels/gemm/gemm_tiled_f16.tscfg.json" ptx,sass
if grep -q "^SKIP" <(python3 -c "import json,sys; r=json.load(open('$tmp/gemm.json')); s=[x for x in r['points'][0]['stages']['stages'] if x['name']=='sass'][0]; print('SKIP' if 'nvdisasm not found' in s.get('absent','') else 'OK')" 2>/dev/null); then
  echo "SKIP: nvdisasm not found (scripts/install-deps.sh installs nvidia-cuda-nvdisasm)"; exit 77
fi
# Without --stages there is no section.
"$exe" check "$src/kernels/gemm/gemm_tiled_f16.tscfg.json" --device h100 -o "$tmp/plain.json" 2>/dev/null
python3 -c "import json,sys; sys.exit('stages' in json.load(open('$tmp/plain.json'))['points'][0])" \
  || { echo "FAIL: a check without --stages has a stages section"; fail=1; }
# The exports show the SASS of a finding's line: a finding placed on the line of
# the report's summary with the most SASS (as a run's trace or a compile error locates one).
python3 - "$tmp/gemm.json" "$tmp/located.json" <<'PY' || fail=1
import json, os, sys
r = json.load(open(sys.argv[1]))
p = r["points"][0]
l = max(p["stages"]["lines"], key=lambda l: l["sass"])
f = {"category": "oob_write", "severity": "error", "message": "planted for the export test",
     "location": {"file": os.path.basename(l["file"]), "line": l["line"]}}
p["findings"].append(f); r["findings"].append(f)
json.dump(r, open(sys.argv[2], "w"))
open(sys.argv[2] + ".line", "w").write("%s:%d %s" % (os.path.basename(l["file"]), l["line"], l["instructions"][0]))
PY
for fmt in md html; do
  "$exe" export "$tmp/located.json" --format $fmt -o "$tmp/located.$fmt" 2>"$tmp/export.err" \
    || { echo "FAIL: $fmt export of a report with stages"; cat "$tmp/export.err"; fail=1; continue; }
  python3 - "$tmp/located.$fmt" "$tmp/located.json.line" "$fmt" <<'PY' || fail=1
import html, sys
text, (where, first), fmt = open(sys.argv[1]).read(), open(sys.argv[2]).read().split(" ", 1), sys.argv[3]
text = html.unescape(text) if fmt == "html" else text.replace("\\", "")
if "SASS of " + where not in text:
    sys.exit(f"FAIL: the {fmt} export has no SASS block for {where}")
if first.split("*/")[-1].strip() not in text:
    sys.exit(f"FAIL: the {fmt} export lacks the line's first instruction {first!r}")
PY
done
tpy=$(ls -d "$src"/build-deps/triton-venv/bin/python3 2>/dev/null)
if ${TILESCOPE_PYTHON:-${tpy:-python3}} -c "import triton" 2>/dev/null; then
  check triton_matmul "$src/kernels/triton/matmul_f16.tscfg.json" ttir,ttgir,llir,ptx,sass
else
  echo "note: Triton is not installed: the Triton half is skipped"
fi
[ "$fail" = 0 ] && echo "stages: ok"
exit $fail
