#!/usr/bin/env bash
# Every config that crashed, hung or drew a sanitizer report in the fuzzing of
# untrusted input (docs/fuzzing.md; tests/data/fuzz/configs, INDEX.jsonl says how each was made) goes
# through `check`: it must end within the time limit with exit 0, 1 or 2, and
# an exit 2 must name the file and where in it the problem is.
set -uo pipefail
exe=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The reproducers name the zoo's kernels where the tree has them
# (../../../../kernels/<group>/, from tests/data/fuzz/configs/<group>/): the copy
# (unzipped) keeps that layout, the zoo stays where it is.
configs=$tmp/tests/data/fuzz/configs
mkdir -p "$(dirname "$configs")"
cp -r "$src/tests/data/fuzz/configs" "$configs"
ln -s "$src/kernels" "$tmp/kernels"
find "$configs" -name '*.gz' -exec gunzip -f {} +
fail=0; n=0
for cfg in $(find "$configs" -name '*.tscfg.json' | sort); do
  name=${cfg#"$configs/"}
  start=$(date +%s)
  # --allow-outside-paths: the reproducers name the zoo's sources, outside their
  # folder (they are ours); what is tested is everything after the consent check.
  timeout 90 "$exe" check "$cfg" --device h100 --compile-timeout 20 --allow-outside-paths -o "$tmp/out.json" \
    >/dev/null 2>"$tmp/err"; rc=$?
  secs=$(( $(date +%s) - start ))
  case $rc in
    0|1) ;;
    2) # "<file>: <json.path or line:col>: <problem>" (the path may be "(top level)"),
       # or "<file>: N bytes, over the limit" for a file too large to read at all
       grep -qE -- "$(basename "$cfg")(:[0-9]+:[0-9]+: |: [A-Za-z_(][^ ]*: |: [0-9]+ bytes, over the limit)" "$tmp/err" \
         || { echo "FAIL $name: no location in: $(head -c 300 "$tmp/err")"; fail=1; } ;;
    124) echo "FAIL $name: still running after 90 s"; fail=1 ;;
    *) echo "FAIL $name: exit $rc: $(head -c 300 "$tmp/err")"; fail=1 ;;
  esac
  [ "$(wc -c < "$tmp/err")" -lt 4096 ] || { echo "FAIL $name: a $(wc -c < "$tmp/err")-byte message"; fail=1; }
  echo "$name: exit $rc in ${secs}s: $(head -c 160 "$tmp/err" | tr '\n' ' ')"
  n=$((n + 1))
done
[ "$n" -ge 33 ] || { echo "FAIL: only $n reproducers found"; exit 1; }
echo "$n reproducers checked"
exit $fail
