#!/usr/bin/env bash
# Tracer cost (docs/measurements.md, "Tracer"), on a GPU host: wall time of one worker capture of the
# same point (no timing, no baseline, no counters) plain, traced (`--trace`: footprints,
# memcheck-class checks, bank conflicts, hazards; `--trace-mode memory`: without
# the hazards), and under `compute-sanitizer --tool memcheck` and `--tool
# racecheck` (only the kernel under test instrumented). Prints a table; the
# traced launch alone is the report's extra.trace_seconds, and a second table
# splits the full trace's time by phase (extra.trace_phases).
# Usage: bench/trace_bench.sh BUILD_DIR OUT_DIR [LIMIT_S] [CONFIG...]
set -uo pipefail
bin=$(cd "$1" && pwd)/app/tilescope-run; out=$2; limit=${3:-240}; shift 3 2>/dev/null || shift $#
mkdir -p "$out"
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(bench/configs/gemm_4096.tscfg.json kernels/attention/flash_attn_fwd_d64.tscfg.json
                                     kernels/softmax/softmax_row_f32.tscfg.json)
cs=${TILESCOPE_COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/compute-sanitizer/compute-sanitizer)}

# timed OUTFILE CMD...: seconds of one command (its stdout to OUTFILE, stderr to
# OUTFILE.err), or ">LIMIT" when it ran out of time
timed() {
  local s e rc f=$1; shift
  s=$(date +%s.%N); timeout "$limit" "$@" > "$f" 2> "$f.err"; rc=$?; e=$(date +%s.%N)
  if [ $rc -eq 124 ]; then echo ">$limit"; else python3 -c "print(f'{$e - $s:.2f}')"; fi
}

printf '| config | kernel | plain s | traced full s (launch s) | traced memory s (launch s) | memcheck s | racecheck s |\n'
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg" .tscfg.json)
  entry=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['kernel']['entry'])" "$cfg")
  # No timing, baseline or counters (a traced capture reads no counters); the
  # bench's configs reach the zoo's kernels outside their folder.
  w=("$bin" worker "$cfg" --no-timing --no-baseline --no-counters --allow-outside-paths)
  "${w[@]}" > /dev/null 2>&1                                   # warm the compile caches
  "${w[@]}" --trace > /dev/null 2>&1
  plain=$(timed "$out/$name.plain.jsonl" "${w[@]}")
  full=$(timed "$out/$name.full.jsonl" "${w[@]}" --trace)
  mem=$(timed "$out/$name.memory.jsonl" "${w[@]}" --trace --trace-mode memory)
  mc=$(timed "$out/$name.memcheck.out" "$cs" --tool memcheck --kernel-name "kns=$entry" --log-file "$out/$name.memcheck.log" "${w[@]}")
  rc=$(timed "$out/$name.racecheck.out" "$cs" --tool racecheck --kernel-name "kns=$entry" --log-file "$out/$name.racecheck.log" "${w[@]}")
  launch() { python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") == "point":
        p = e["point"]; t = p.get("extra", {}).get("trace_seconds")
        print(f"{t:.2f}" if t is not None else p.get("trace", {}).get("status", "?"))
PY
  }
  printf '| %s | %s | %s | %s (%s) | %s (%s) | %s | %s |\n' "$name" "$entry" "$plain" "$full" "$(launch "$out/$name.full.jsonl")" \
    "$mem" "$(launch "$out/$name.memory.jsonl")" "$mc" "$rc"
done

# Where the full trace's time went (extra.trace_phases), per config.
printf '\n| config | %s |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n' "setup s | buffer s | launch s | readback s | decode s | lines s | analysis s"
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg" .tscfg.json)
  python3 - "$out/$name.full.jsonl" "$name" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") == "point":
        ph = e["point"].get("extra", {}).get("trace_phases", {})
        keys = ["setup", "buffer", "launch", "readback", "decode", "lines", "analysis"]
        print("| " + sys.argv[2] + " | " + " | ".join(f"{ph[k]:.3f}" if k in ph else "-" for k in keys) + " |")
PY
done
