#!/usr/bin/env bash
# diagnose's wall time on the two kernels that used to take minutes (docs/measurements.md, "Diagnose";
# item 5; targets: <= 30 s for a hang, <= 45 s for a 2^31-element kernel), on a
# GPU host, without a --max-seconds budget (what a user gets by default):
#   bench/diagnose/hang.tscfg.json     every thread spins on a flag nobody sets
#   bench/diagnose/index32.tscfg.json  a byte copy over 2^31 + 4096 elements
#                                      whose int index wraps past 2^31
# Prints per kernel: wall seconds, verdict, first finding, the experiments with
# their seconds, what was cut (budget_s, not_run, skipped).
# Usage: bench/gpu_diagnose_time.sh BUILD_DIR [OUT] [CONFIG...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
out=${2:-${OUT:-gpu-out}}/diagnose-time
shift 2 2>/dev/null || shift $#
run=$PWD/$build/app/tilescope-run
mkdir -p "$out"
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(bench/diagnose/hang.tscfg.json bench/diagnose/index32.tscfg.json)
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg" .tscfg.json)
  t0=$(date +%s.%N)
  "$run" diagnose "$cfg" -o "$out/$name.json" > "$out/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  python3 - "$out/$name.json" "$name" "$rc" "$t0" "$t1" <<'PY'
import json, sys
path, name, rc, t0, t1 = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name}: rc={rc}, {t1 - t0:.1f} s, no report ({e})")
    sys.exit()
f = (r.get("findings") or [{}])[0]
loc = f.get("location", {})
print(f"{name}: {t1 - t0:.1f} s wall, rc={rc}, verdict {r.get('verdict')}, first finding "
      f"{f.get('category')} at {loc.get('file', '?')}:{loc.get('line', '?')}")
d = r.get("extra", {}).get("diagnose", r.get("diagnose", {}))
for e in d.get("experiments", []):
    print(f"    {e.get('experiment'):28s} {e.get('verdict'):8s} {e.get('wall_s', 0):7.2f} s")
for k in ("budget_s", "not_run", "skipped", "stopped"):
    if d.get(k):
        print(f"    {k}: {d[k]}")
PY
done
