#!/usr/bin/env bash
# Golden-file test of `tilescope-run check --device h100` on every shipped config
# that has a golden file under tests/cli/golden (named after the config).
# Regenerate goldens with: UPDATE_GOLDEN=1 ctest -R cli.check_golden
set -uo pipefail
exe=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
for golden in "$src"/tests/cli/golden/*.json; do
  [ -e "$golden" ] || continue
  name=$(basename "$golden" .json)
  cfg=$(find "$src/kernels" -name "$name.tscfg.json" | head -1)
  if [ -z "$cfg" ]; then echo "FAIL $name: no config kernels/**/$name.tscfg.json"; fail=1; continue; fi
  "$exe" check "$cfg" --device h100 -o "$tmp/$name.json" 2>"$tmp/$name.err"
  rc=$?
  if [ "$rc" -ge 2 ]; then echo "FAIL $name: exit $rc"; cat "$tmp/$name.err"; fail=1; continue; fi
  python3 "$src/tests/cli/normalise.py" "$tmp/$name.json" > "$tmp/$name.norm" || { fail=1; continue; }
  if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then cp "$tmp/$name.norm" "$golden"; fi
  if ! diff -u "$golden" "$tmp/$name.norm"; then echo "FAIL $name: differs from its golden file"; fail=1; fi
  # The exit status follows the verdict (docs/report.md, Exit status).
  verdict=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$tmp/$name.json")
  want=1; [ "$verdict" = ok ] && want=0
  [ "$rc" = "$want" ] || { echo "FAIL $name: exit $rc for verdict $verdict"; fail=1; }
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no golden files checked"; exit 1; }
echo "$n golden configs checked"
exit $fail
