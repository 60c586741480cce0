#!/usr/bin/env bash
# `run --remote HOST`: the workers start through ssh on HOST. A stand-in `ssh` on
# PATH does what ssh does with the command (joins the arguments into one line
# for the remote shell) and runs it here, so the quoting is what is tested: the
# config lives in a folder whose name has a space and a quote. Without a GPU the
# worker loads the config and exits 3 (no GPU); a broken path would make it exit 2.
set -uo pipefail
exe=$(realpath "$1"); src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -p "$tmp/bin" "$tmp/my kernel's configs"
cp "$src/kernels/gemm/gemm_tiled_f16.tscfg.json" "$src/kernels/gemm/gemm_tiled.cu" "$tmp/my kernel's configs/"
ln -s "$exe" "$tmp/bin/tilescope-run"
cat > "$tmp/bin/ssh" <<'SSH'
#!/usr/bin/env bash
while [ "${1:-}" = "-o" ]; do shift 2; done
[ "${1:-}" = "--" ] && shift   # the end of ssh's options, before the host
echo "host=$1" >> "$SSH_LOG"; shift
exec sh -c "$*"
SSH
chmod +x "$tmp/bin/ssh"
cfg="$tmp/my kernel's configs/gemm_tiled_f16.tscfg.json"

SSH_LOG="$tmp/ssh.log" PATH="$tmp/bin:$PATH" "$exe" run "$cfg" --remote gpu-host -o "$tmp/r.json" \
  >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
grep -qx "host=gpu-host" "$tmp/ssh.log" 2>/dev/null || { echo "FAIL: the worker did not start through ssh gpu-host"; fail=1; }
case $rc in
  0|1|3) ;;
  *) echo "FAIL: exit $rc"; cat "$tmp/err.txt"; fail=1 ;;
esac
# A worker that ended without a result has extra.worker_exit: only 3 (no GPU) is right.
if [ -f "$tmp/r.json" ]; then
  got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(str(p.get("extra",{}).get("worker_exit","-")) for p in r["points"]))' "$tmp/r.json")
  for e in $got; do
    case $e in -|3) ;; *) echo "FAIL: the remote worker ended with status $e without a result"; cat "$tmp/err.txt"; fail=1 ;; esac
  done
fi
if grep -q "cannot open config\|neither a define" "$tmp/err.txt" "$tmp/out.txt"; then
  echo "FAIL: the config path or an argument was split by the remote shell"; cat "$tmp/err.txt"; fail=1
fi
[ "$fail" = 0 ] && echo "remote run ok (exit $rc)"
exit $fail
