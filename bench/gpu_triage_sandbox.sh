#!/usr/bin/env bash
# The triage's sandbox on a GPU host (docs/triage.md, "The sandbox"):
#
#   bench/gpu_triage_sandbox.sh BUILD_DIR OUT
#
# triages a sample of bench/triage/problems (healthy, compile errors, faulting
# out-of-bounds writes and reads, wrong results, no-kernel) plus a hostile
# problem with the real PyTorch, twice with the same options: confined (the
# default) and unconfined (a stand-in bwrap that cannot confine, and
# --allow-commands). It prints, per entry, both verdicts, categories and lines
# (they must agree: the sandbox changes where code may reach, not what a
# kernel does), the wall time per entry of each run and the overhead, and what
# the hostile problem reached in each run (the unconfined run shows what the
# sandbox prevents). Exit 1 where a verdict differs or the confined hostile
# problem escaped.
#
# Environment: TILESCOPE_PYTHON (default python3: the one with torch and
# Triton), SANDBOX_JOBS (default 4), SANDBOX_DEPTH (default run).
set -u
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR OUT" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
TS="$BUILD/app/tilescope-run"
JOBS=${SANDBOX_JOBS:-4}
DEPTH=${SANDBOX_DEPTH:-run}
export TILESCOPE_PYTHON=${TILESCOPE_PYTHON:-python3}
[ -x "$TS" ] || { echo "no tilescope-run in $BUILD/app" >&2; exit 2; }
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU" >&2; exit 3; }
bwrap --unshare-all --die-with-parent --ro-bind / / true 2>"$OUT/bwrap_probe.txt" ||
  { echo "bubblewrap cannot confine here: $(cat "$OUT/bwrap_probe.txt")" >&2; exit 3; }

P="$OUT/problems"
rm -rf "$P" "$OUT/escaped"
mkdir -p "$P" "$OUT/escaped"
for n in 01_relu 08_softmax 11_matmul 13_relu_arange_n 21_relu_store_no_mask 24_rowsum_load_no_mask \
  27_relu_wild_stride 28_matvec_wrong_stride 32_softmax_no_max 38_relu_torch_fallback 45_missing_module; do
  cp "$HERE/triage/problems/$n.py" "$HERE/triage/problems/${n}_new.py" "$P/"
done
# The hostile problem: a healthy ReLU whose reference also tries to escape (to the
# real $HOME, expanded here: inside the sandbox "~" is the entry's private home).
cat >"$P/99_hostile.py" <<PY
import os, socket, torch
seen = open("seen.txt", "w")
def attempt(what, fn):
    try:
        fn(); seen.write("%s: ESCAPED\n" % what)
    except Exception as e:
        seen.write("%s: refused %s\n" % (what, type(e).__name__))
attempt("outside", lambda: open("$OUT/escaped/" + str(os.getpid()), "w").write("x"))
attempt("home", lambda: open("$HOME/.tilescope_planted_" + str(os.getpid()), "a").write("x"))
attempt("net", lambda: socket.create_connection(("127.0.0.1", 22), timeout=1).close())
seen.write("cuda: %s %s\n" % (torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""))
seen.close()
N = 1 << 16
class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)
def get_inputs():
    return [torch.randn(N)]
def get_init_inputs():
    return []
PY
cp "$HERE/triage/problems/01_relu_new.py" "$P/99_hostile_new.py"

mkdir -p "$OUT/nobwrap"
printf '#!/bin/sh\necho "bwrap: stand-in: no sandbox" >&2\nexit 1\n' >"$OUT/nobwrap/bwrap"
chmod +x "$OUT/nobwrap/bwrap"
run() {  # NAME [extra env/args via variables]
  local name=$1; shift
  local s=$(date +%s.%N)
  env "$@" TRITON_CACHE_DIR="$OUT/triton-cache-$name" "$TS" triage "$P" -o "$OUT/$name.json" --force \
    --jobs "$JOBS" --depth "$DEPTH" --seeds 2 --timeout 120 ${EXTRA_ARGS:-} 2>"$OUT/$name.log"
  local rc=$?
  echo "$name: exit $rc after $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
}
run confined
EXTRA_ARGS=--allow-commands run unconfined PATH="$OUT/nobwrap:$PATH"
python3 - "$OUT" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
a = {e["name"]: e for e in json.load(open(os.path.join(out, "confined.json")))["entries"]}
b = {e["name"]: e for e in json.load(open(os.path.join(out, "unconfined.json")))["entries"]}
bad = 0
print("%-28s %-42s %-42s %7s %7s" % ("entry", "confined", "unconfined", "s conf", "s unconf"))
for n in sorted(a):
    ea, eb = a[n], b.get(n, {})
    def v(e):
        return "%s %s/%s%s" % (e.get("status"), e.get("verdict", ""), e.get("category", ""),
                               (":%s" % e["line"]) if e.get("line") else "")
    same = (ea.get("verdict"), ea.get("category"), ea.get("line")) == (eb.get("verdict"), eb.get("category"), eb.get("line"))
    print("%-28s %-42s %-42s %7.1f %7.1f %s" % (n, v(ea)[:42], v(eb)[:42], ea.get("seconds", 0), eb.get("seconds", 0),
                                           "" if same else "<- differs"))
    if ea.get("status") != "done":
        print("   confined note:", (ea.get("note") or "")[:300])
    bad |= not same
    sb = ea.get("extra", {}).get("sandbox", {})
    if n == "99_hostile":
        print("   sandbox:", json.dumps(sb))
sa = [e.get("seconds", 0) for e in a.values()]
sb_ = [e.get("seconds", 0) for e in b.values()]
print("per entry: confined mean %.2f s median %.2f s; unconfined mean %.2f s median %.2f s; overhead mean %+.2f s (%+.1f %%)"
      % (statistics.mean(sa), statistics.median(sa), statistics.mean(sb_), statistics.median(sb_),
         statistics.mean(sa) - statistics.mean(sb_), 100 * (statistics.mean(sa) / statistics.mean(sb_) - 1)))
for name in ("confined", "unconfined"):
    for f in glob.glob(os.path.join(out, name + ".json.d", "99_hostile*", "sandbox", "seen.txt")) + \
             glob.glob(os.path.join(out, "seen.txt")):
        print("hostile problem, %s run (%s):" % (name, f))
        print("".join("   " + line for line in open(f)))
esc = os.listdir(os.path.join(out, "escaped"))
print("files written outside by the hostile problem: %d (the unconfined run's)" % len(esc))
home = os.path.expanduser("~")
planted = [f for f in os.listdir(home) if f.startswith(".tilescope_planted_")]
print("files planted in the real $HOME: %d (the unconfined run's)" % len(planted))
for f in planted:
    os.remove(os.path.join(home, f))
conf = glob.glob(os.path.join(out, "confined.json.d", "99_hostile*", "sandbox", "seen.txt"))
if not conf or "ESCAPED" in open(conf[0]).read():
    print("FAIL: the confined hostile problem escaped, or did not run"); bad = 1
sys.exit(1 if bad else 0)
PY
