#!/usr/bin/env bash
# Capture's Cancel on a GPU host (docs/capture.md): a program that never ends
# (the CUDA saxpy_rows program in a shell loop) is captured with --stream and
# --launch-count 2; once a launch is recorded, `capture` gets SIGINT, as the
# workbench's Cancel and Ctrl-C send it. Prints: capture's exit status and how
# long it took to stop, the program processes left behind (must be 0),
# capture.json's exit, the launches recorded and the replay verdict of each
# config. Usage: bench/gpu_capture_cancel.sh BUILD_DIR [OUT]
set -uo pipefail
cd "$(dirname "$0")/.."
run=$PWD/${1:-build-gpu}/app/tilescope-run
out=${2:-/tmp/tilescope-capture-cancel}
rm -rf "$out" && mkdir -p "$out"
nvcc -O2 -lineinfo -o "$out/saxpy_rows" bench/capture/saxpy_rows.cu || exit 1
"$run" capture -o "$out/cap" --stream --launch-count 2 -- \
  bash -c "while true; do '$out/saxpy_rows' 1048576 >/dev/null; done" >"$out/stream.jsonl" 2>"$out/capture.err" &
pid=$!
for _ in $(seq 1 150); do
  grep -q '"capture_event"' "$out/stream.jsonl" 2>/dev/null && break
  sleep 0.2
done
sleep 1
t0=$(date +%s.%N)
kill -INT "$pid"
wait "$pid"
rc=$?
t1=$(date +%s.%N)
sleep 0.5
echo "capture exit $rc, stopped $(python3 -c "print(f'{$t1 - $t0:.2f}')") s after SIGINT"
echo "program processes left: $(pgrep -f "$out/saxpy_rows" | wc -l)"
python3 - "$out/cap/capture.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
print("capture.json exit:", c.get("exit"))
launches = c.get("launches", [])
print(f"launches recorded: {len(launches)}:", [(l.get("kernel"), l.get("config") or l.get("reason")) for l in launches])
PY
for cfg in "$out"/cap/*.tscfg.json; do
  [ -f "$cfg" ] || continue
  "$run" run "$cfg" --counters none -o "$out/replay.json" >/dev/null 2>&1
  python3 -c "
import json,sys; r=json.load(open('$out/replay.json')); p=r['points'][0]
print('replay', sys.argv[1], p['verdict'], sorted({f['category'] for f in p.get('findings', [])}))" "$(basename "$cfg")"
done
tail -3 "$out/capture.err"
