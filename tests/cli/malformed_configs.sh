#!/usr/bin/env bash
# Every malformed config under tests/data/config/bad_*.tscfg.json must give exit
# status 2 (nothing run) and one message naming the file and the location of the
# problem: a JSON path (`tensors.C.shape[1]: ...`) or, for broken JSON, line:column.
# Exact wording per error is pinned by the loader's unit tests.
set -uo pipefail
exe=$1; src=$2
fail=0; n=0
for cfg in "$src"/tests/data/config/bad_*.tscfg.json; do
  [ -e "$cfg" ] || continue
  # The fixtures share tests/data/npy (outside their folder): allowed, so that
  # each one fails on its own problem.
  err=$("$exe" check "$cfg" --no-compile --allow-outside-paths 2>&1 >/dev/null); rc=$?
  base=$(basename "$cfg")
  if [ "$rc" != 2 ]; then echo "FAIL $base: exit $rc, want 2"; fail=1; fi
  # "<file>: <json.path or line:col>: <problem>"
  if ! grep -qE -- "$base(:[0-9]+:[0-9]+: invalid JSON|: [A-Za-z_][][A-Za-z0-9_.]*: )" <<<"$err"; then
    echo "FAIL $base: no location in: $err"; fail=1
  fi
  n=$((n + 1))
done
"$exe" check /nonexistent.tscfg.json 2>/dev/null; [ $? = 2 ] || { echo "FAIL: a missing file must exit 2"; fail=1; }
"$exe" check "$src/tests/data/config/bad_dtype.tscfg.json" --device nosuchgpu 2>/dev/null; [ $? = 2 ] || { echo "FAIL: unknown device"; fail=1; }
[ "$n" -gt 0 ] || { echo "FAIL: no malformed fixtures"; exit 1; }
echo "$n malformed configs checked"
exit $fail
