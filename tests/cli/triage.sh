#!/usr/bin/env bash
# `tilescope-run triage` without a GPU (docs/triage.md): configs end at their
# check-level verdicts (a compile error located at its line, a launch the device
# refuses, a correct kernel `checked`), problems without PyTorch or a GPU and an
# unpaired reference are `not_run` with the reason (and no verdict), the output
# reads back, exports to Markdown and HTML with the same sections, an existing
# output needs --resume (which runs nothing finished again) or --force, a --pairs
# manifest pairs files of any name (its malformed lines and paths outside it are
# usage errors), and a folder with nothing to triage is a usage error.
set -uo pipefail
exe=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -p "$tmp/in/problems"
# A CUDA kernel that does not compile (NVRTC, in check), beside the zoo's own configs.
cat > "$tmp/in/broken.cu" <<'EOF'
extern "C" __global__ void broken(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = undefined_value;
}
EOF
cat > "$tmp/in/broken.tscfg.json" <<'EOF'
{"schema": "tilescope.config/1", "name": "broken",
 "kernel": {"source": "broken.cu", "entry": "broken"},
 "params": {"N": 1000},
 "tensors": {"out": {"dtype": "f32", "shape": ["N"], "output": true}},
 "args": ["out", "N"],
 "launch": {"grid": ["ceil_div(N, 256)", 1, 1], "block": [256, 1, 1]},
 "reference": {"op": "none"}, "baseline": "none"}
EOF
cp "$src/bench/triage/problems/01_relu.py" "$src/bench/triage/problems/01_relu_new.py" "$tmp/in/problems/"
cp "$src/bench/triage/problems/09_rowsum.py" "$tmp/in/problems/09_lonely.py"
out="$tmp/triage.json"
TILESCOPE_PYTHON=${TILESCOPE_TEST_PYTHON:-python3} "$exe" triage "$tmp/in" \
  "$src/kernels/gate/highway_gate.tscfg.json" "$src/kernels/gate/invalid_launch.tscfg.json" \
  -o "$out" --jobs 2 --timeout 300 2> "$tmp/stderr"
rc=$?
if [ "$rc" -ne 1 ]; then echo "FAIL: exit $rc (expected 1: findings)"; cat "$tmp/stderr"; fail=1; fi
grep -q '^triage \[4/4\]' "$tmp/stderr" || { echo "FAIL: no progress line for the last entry"; fail=1; }
grep -q '^taxonomy (5 entries)' "$tmp/stderr" || { echo "FAIL: no taxonomy on stderr"; fail=1; }
python3 - "$out" <<'PY' || fail=1
import json, sys
t = json.load(open(sys.argv[1]))
e = {x["name"]: x for x in t["entries"]}
errors = []
def want(cond, msg):
    if not cond: errors.append(msg)
want(t["schema"] == "tilescope.triage/1" and t["complete"], "schema/complete")
want(set(e) == {"broken", "highway_gate", "invalid_launch", "01_relu", "09_lonely"}, "entries: %s" % sorted(e))
b = e["broken"]
cuda = b.get("category") == "compile_error"
if cuda:  # built with CUDA: check compiled it
    want(b["verdict"] == "compile_error" and b.get("line") == 3 and "undefined_value" in b.get("source_line", ""),
         "broken: %s" % b)
    want(b.get("fix"), "broken: no fix")
want(e["invalid_launch"].get("category") == "invalid_launch" and e["invalid_launch"]["verdict"] == "launch_error",
     "invalid_launch: %s" % e["invalid_launch"])
hg = e["highway_gate"]
want(hg["status"] == "done" and hg["verdict"] == "ok" and hg["level"] == "check", "highway_gate: %s" % hg)
want(hg.get("extra", {}).get("no_gpu") is True, "highway_gate: not marked judged without a GPU")
want(e["01_relu"]["status"] == "not_run" and ("PyTorch" in e["01_relu"]["note"] or "GPU" in e["01_relu"]["note"]),
     "01_relu: %s" % e["01_relu"])
want(e["09_lonely"]["status"] == "not_run" and "09_lonely_new.py" in e["09_lonely"]["note"], "09_lonely")
want(all("verdict" not in x for x in e.values() if x["status"] != "done"), "an entry not judged has a verdict")
keys = {r["category"]: r["count"] for r in t["taxonomy"] if "detail" not in r}
want(keys.get("checked") == 1 and keys.get("not_run") == 2 and keys.get("invalid_launch") == 1, "taxonomy %s" % keys)
want(t["counts"]["entries"] == 5, "counts")
for k in e.values():
    if k.get("report"):
        want(json.load(open(__import__("os").path.join(__import__("os").path.dirname(sys.argv[1]), k["report"])))
             ["schema"] == "tilescope.report/1", "report of %s" % k["name"])
for m in errors:
    print("FAIL", m)
sys.exit(1 if errors else 0)
PY
# Exports of the triage: the same sections in Markdown and HTML.
"$exe" export "$out" --format md -o "$tmp/t.md" 2>/dev/null || { echo "FAIL: md export"; fail=1; }
"$exe" export "$out" --format html -o "$tmp/t.html" 2>/dev/null || { echo "FAIL: html export"; fail=1; }
"$exe" export "$out" --format json -o "$tmp/t.json" 2>/dev/null || { echo "FAIL: json export"; fail=1; }
python3 - "$tmp/t.md" "$tmp/t.html" <<'PY' || fail=1
import html, re, sys
md, page = open(sys.argv[1]).read(), open(sys.argv[2]).read()
a = [re.sub(r"\\(.)", r"\1", h) for h in re.findall(r"^## (.*)$", md, re.M)]
b = [html.unescape(h) for h in re.findall(r"<h2[^>]*>(.*?)</h2>", page)]
ok = a == b and {"Summary", "Taxonomy", "Entries", "Findings and fixes", "Not run"} <= set(a)
print("" if ok else "FAIL sections: %s vs %s" % (a, b), end="")
sys.exit(0 if ok else 1)
PY
# An existing output: refused without --resume or --force; --resume runs nothing finished.
"$exe" triage "$tmp/in" -o "$out" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: an existing output was not refused"; fail=1; }
before=$(python3 -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['entries'] if e['status']=='done'))" "$out")
TILESCOPE_PYTHON=${TILESCOPE_TEST_PYTHON:-python3} "$exe" triage "$tmp/in" \
  "$src/kernels/gate/highway_gate.tscfg.json" "$src/kernels/gate/invalid_launch.tscfg.json" \
  -o "$out" --resume --depth check --stream > "$tmp/stream.out" 2> "$tmp/resume.err"
grep -q "5 entries, 2 to run" "$tmp/resume.err" || { echo "FAIL: resume re-ran finished entries:"; head -3 "$tmp/resume.err"; fail=1; }
python3 - "$tmp/stream.out" <<'PY' || fail=1
import json, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = len(events) == 2 and all(e["schema"] == "tilescope.stream/1" and e["event"] == "progress" and
                              e.get("stage") == "triage" for e in events)
print("" if ok else "FAIL stream: %s" % events, end="")
sys.exit(0 if ok else 1)
PY
# A manifest of pairs (--pairs): files of any name, paths from its folder; a line
# that breaks a rule is a usage error naming the file and the line.
mkdir -p "$tmp/m/refs" "$tmp/m/try"
cp "$src/bench/triage/problems/01_relu.py" "$tmp/m/refs/relu.py"
cp "$src/bench/triage/problems/01_relu_new.py" "$tmp/m/try/attempt.py"
printf '# tilescope.triage.pairs/1\nrefs/relu.py\ttry/attempt.py\trelu attempt\n' > "$tmp/m/pairs.tsv"
TILESCOPE_PYTHON=${TILESCOPE_TEST_PYTHON:-python3} "$exe" triage --pairs "$tmp/m/pairs.tsv" -o "$tmp/m.json" \
  --timeout 300 2> "$tmp/m.err"
python3 - "$tmp/m.json" "$tmp/m" <<'PY' || { cat "$tmp/m.err"; fail=1; }
import json, sys
t = json.load(open(sys.argv[1]))
want = [sys.argv[2] + "/refs/relu.py", sys.argv[2] + "/try/attempt.py"]
ok = [(e["name"], e["kind"], e["inputs"]) for e in t["entries"]] == [("relu attempt", "problem", want)]
ok = ok and sys.argv[1].replace("m.json", "m/pairs.tsv") in t["inputs"]
print("" if ok else "FAIL --pairs: %s" % t["entries"], end="")
sys.exit(0 if ok else 1)
PY
printf 'refs/relu.py\ttry/attempt.py\nrefs/relu.py try/attempt.py\n' > "$tmp/m/bad.tsv"
"$exe" triage --pairs "$tmp/m/bad.tsv" -o "$tmp/bad.json" 2> "$tmp/bad.err"
[ $? -eq 2 ] && grep -q "bad.tsv:2: expected REFERENCE<TAB>CANDIDATE" "$tmp/bad.err" ||
  { echo "FAIL: a malformed manifest line:"; cat "$tmp/bad.err"; fail=1; }
printf '../in/problems/01_relu.py\ttry/attempt.py\n' > "$tmp/m/out.tsv"
"$exe" triage --pairs "$tmp/m/out.tsv" -o "$tmp/out.json" 2> "$tmp/out.err"
[ $? -eq 2 ] && grep -q "out.tsv:1: the reference '../in/problems/01_relu.py' resolves outside" "$tmp/out.err" ||
  { echo "FAIL: a manifest path outside its folder:"; cat "$tmp/out.err"; fail=1; }
# Nothing to triage.
mkdir -p "$tmp/empty"
"$exe" triage "$tmp/empty" -o "$tmp/e.json" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: an empty folder was not a usage error"; fail=1; }
[ ! -e "$tmp/e.json" ] || { echo "FAIL: an empty triage wrote a file"; fail=1; }
[ "$fail" -eq 0 ] && echo "triage: ok"
exit $fail
