#!/usr/bin/env bash
# `check` looks `run.metrics` up in the chip's own metric list (CUPTI's Profiler
# Host API, no GPU): an unknown name is a configuration error naming its index,
# the name and the chip. Skips on a build without CUDA (the list is CUPTI's).
set -uo pipefail
exe=$1; src=$2
cfg=$src/tests/data/config/run_metric_unknown.tscfg.json
if "$exe" worker "$cfg" 2>&1 | grep -q "built without CUDA"; then echo "skip: built without CUDA"; exit 0; fi
err=$("$exe" check "$cfg" --device h100 --no-compile 2>&1 >/dev/null); rc=$?
fail=0
[ "$rc" = 2 ] || { echo "FAIL: exit $rc, want 2: $err"; fail=1; }
for want in "run_metric_unknown.tscfg.json: run.metrics[1]" "smsp__no_such_counter.sum" "GH100"; do
  grep -qF -- "$want" <<<"$err" || { echo "FAIL: '$want' not in: $err"; fail=1; }
done
# The same config on an Ampere device: the chip's list decides, so still an error.
"$exe" check "$cfg" --device a100 --no-compile >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL: a100 accepted the unknown metric"; fail=1; }
# A known extra metric passes.
python3 - "$cfg" > "${TMPDIR:-/tmp}/run_metric_known.$$.tscfg.json" <<'PY'
import json, sys, os
c = json.load(open(sys.argv[1])); c["run"]["metrics"] = ["smsp__warps_launched.sum"]
c["kernel"]["source"] = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), c["kernel"]["source"])
print(json.dumps(c))
PY
# (written to a temporary folder, it names the kernel by its absolute path)
"$exe" check "${TMPDIR:-/tmp}/run_metric_known.$$.tscfg.json" --device h100 --no-compile --allow-outside-paths >/dev/null 2>&1; rc=$?
rm -f "${TMPDIR:-/tmp}/run_metric_known.$$.tscfg.json"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { echo "FAIL: a known metric gave exit $rc"; fail=1; }
[ $fail = 0 ] && echo "run.metrics checked against the chip"
exit $fail
