#!/usr/bin/env bash
# What a hostile config or host name must not be able to do (docs/security.md; see
# docs/security.md). Each case would have caught the hole it is named after:
#  1. --remote '-oProxyCommand=...' runs nothing (not even ssh), exit 2;
#     an ssh that cannot connect is "cannot reach host", exit 3, no fault.
#  2. a command baseline and `-ccbin ./cc` never run under `check`; `run` refuses
#     them without --allow-commands (before the no-GPU exit), and with it a run
#     that times nothing (no GPU) still does not start the command.
#  3. include paths, #include lines and symlinked sources that leave the
#     config's folder are refused unless --allow-outside-paths.
#  4. check's temporary files live in a private mkdtemp folder: a symlink planted
#     at the old predictable name is never followed.
set -uo pipefail
exe=$(realpath "$1"); src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

mkdir -p "$tmp/cfg" "$tmp/bin" "$tmp/outside"
cp "$src/kernels/gemm/gemm_tiled.cu" "$tmp/cfg/"
base="$src/kernels/gemm/gemm_tiled_f16.tscfg.json"
# A variant of the zoo config: python edits one field (JSON path = value).
variant() {  # variant OUT 'python statement on d'
  python3 - "$base" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}

# --- 1. hostile and unreachable hosts -----------------------------------------
cp "$base" "$tmp/cfg/plain.tscfg.json"
cat > "$tmp/bin/ssh" <<'SSH'
#!/usr/bin/env bash
echo "ssh $*" >> "$SSH_LOG"
echo "ssh: connect to host gpu-gone port 22: Connection refused" >&2
exit 255
SSH
chmod +x "$tmp/bin/ssh"
SSH_LOG="$tmp/ssh.log" PATH="$tmp/bin:$PATH" "$exe" run "$tmp/cfg/plain.tscfg.json" \
  --remote "-oProxyCommand=touch $tmp/pwned" 2>"$tmp/err1"; rc=$?
[ "$rc" = 2 ] || say "hostile host: exit $rc, want 2"
[ -e "$tmp/pwned" ] && say "hostile host: the ProxyCommand ran"
[ -e "$tmp/ssh.log" ] && say "hostile host: ssh was started at all"
grep -q "starts with '-'" "$tmp/err1" || { say "hostile host: no reason given"; cat "$tmp/err1"; }

SSH_LOG="$tmp/ssh.log" PATH="$tmp/bin:$PATH" "$exe" run "$tmp/cfg/plain.tscfg.json" \
  --remote gpu-gone -o "$tmp/r.json" 2>"$tmp/err2"; rc=$?
[ "$rc" = 3 ] || say "unreachable host: exit $rc, want 3"
grep -q "cannot reach host 'gpu-gone'" "$tmp/err2" || { say "unreachable host: message"; cat "$tmp/err2"; }
grep -q "illegal_address" "$tmp/err2" && say "unreachable host reported as a kernel fault"
grep -q -- "-- gpu-gone tilescope-run" "$tmp/ssh.log" || say "ssh options do not end (--) before the host: $(cat "$tmp/ssh.log")"

# --- 2. programs a config names -----------------------------------------------
variant "$tmp/cfg/cmd.tscfg.json" "d['baseline'] = {'command': 'touch $tmp/baseline-ran; echo {\"median_ns\": 1}'}"
"$exe" check "$tmp/cfg/cmd.tscfg.json" --device h100 -o "$tmp/c.json" 2>"$tmp/err3"; rc=$?
[ "$rc" -le 1 ] || { say "check on a command baseline: exit $rc"; cat "$tmp/err3"; }
"$exe" run "$tmp/cfg/cmd.tscfg.json" 2>"$tmp/err4"; rc=$?
[ "$rc" = 2 ] || say "run without --allow-commands: exit $rc, want 2"
grep -q "baseline.command" "$tmp/err4" && grep -q -- "--allow-commands" "$tmp/err4" || { say "run: no reason"; cat "$tmp/err4"; }
CUDA_VISIBLE_DEVICES=none "$exe" run "$tmp/cfg/cmd.tscfg.json" --allow-commands 2>"$tmp/err5"; rc=$?
if [ "$rc" = 3 ]; then
  [ -e "$tmp/baseline-ran" ] && say "a run without a GPU ran the command baseline"
fi
[ "$rc" = 2 ] && { say "run --allow-commands refused"; cat "$tmp/err5"; }
rm -f "$tmp/baseline-ran"

cat > "$tmp/cfg/cc" <<CC
#!/bin/sh
touch "$tmp/cc-ran"
exec g++ "\$@"
CC
chmod +x "$tmp/cfg/cc"
variant "$tmp/cfg/ccbin.tscfg.json" "d['kernel']['compiler'] = 'nvcc'; d['kernel']['options'] = ['-std=c++17', '-ccbin', './cc', '-Xcompiler', '-wrapper,./cc']"
(cd "$tmp/cfg" && "$exe" check ccbin.tscfg.json --device h100 -o "$tmp/cc.json" 2>"$tmp/err6"); rc=$?
[ "$rc" -le 1 ] || { say "check with -ccbin: exit $rc"; cat "$tmp/err6"; }
[ -e "$tmp/cc-ran" ] && say "check ran the program named by -ccbin / -Xcompiler -wrapper"
if [ -f "$tmp/cc.json" ]; then
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); log=r["points"][0]["compile"].get("log",""); sys.exit(0 if "not compiled" in log and "-ccbin" in log else 1)' "$tmp/cc.json" \
    || say "check's report does not say why the kernel was not compiled"
fi
(cd "$tmp/cfg" && "$exe" run ccbin.tscfg.json 2>"$tmp/err7"); rc=$?
[ "$rc" = 2 ] || say "run with -ccbin and no consent: exit $rc, want 2"
grep -q "kernel.options\[1\]" "$tmp/err7" || { say "run -ccbin: the option is not named"; cat "$tmp/err7"; }
[ -e "$tmp/cc-ran" ] && say "run ran -ccbin without consent"

# --- 3. paths outside the config's folder -------------------------------------
echo "root:x:0:0:SECRET-FIRST-LINE" > "$tmp/outside/passwd"
variant "$tmp/cfg/inc.tscfg.json" "d['kernel']['options'] = ['-std=c++17', '-I$tmp/outside']"
"$exe" check "$tmp/cfg/inc.tscfg.json" --device h100 -o "$tmp/i.json" 2>"$tmp/err8"; rc=$?
[ "$rc" = 2 ] || say "an include path outside the folder: exit $rc, want 2"
grep -q "kernel.options\[1\]" "$tmp/err8" && grep -q -- "--allow-outside-paths" "$tmp/err8" || { say "include path: message"; cat "$tmp/err8"; }
"$exe" check "$tmp/cfg/inc.tscfg.json" --device h100 --no-compile --allow-outside-paths 2>/dev/null; rc=$?
[ "$rc" -le 1 ] || say "--allow-outside-paths does not allow it: exit $rc"

mkdir -p "$tmp/cfg2"
cp "$base" "$tmp/cfg2/k.tscfg.json"
{ echo "#include \"$tmp/outside/passwd\""; cat "$src/kernels/gemm/gemm_tiled.cu"; } > "$tmp/cfg2/gemm_tiled.cu"
"$exe" check "$tmp/cfg2/k.tscfg.json" --device h100 -o "$tmp/p.json" 2>"$tmp/err9"; rc=$?
[ "$rc" = 2 ] || say "#include of a file outside: exit $rc, want 2"
grep -q "kernel.source" "$tmp/err9" || { say "#include outside: message"; cat "$tmp/err9"; }
grep -q "SECRET-FIRST-LINE" "$tmp/err9" "$tmp/p.json" 2>/dev/null && say "the outside file's content reached the output"

mkdir -p "$tmp/cfg3"
cp "$base" "$tmp/cfg3/k.tscfg.json"
ln -s "$tmp/outside/passwd" "$tmp/cfg3/gemm_tiled.cu"
"$exe" check "$tmp/cfg3/k.tscfg.json" --device h100 2>"$tmp/err10"; rc=$?
[ "$rc" = 2 ] || say "a symlinked source outside: exit $rc, want 2"
grep -q "SECRET-FIRST-LINE" "$tmp/err10" && say "a symlinked source's content reached the output"

# An .npy outside the folder: every verb that runs a config refuses it before a
# point is resolved (resolving reads the file's header), the Slurm path too.
printf 'NOT-AN-NPY-SECRET' > "$tmp/outside/a.npy"
variant "$tmp/cfg/npy.tscfg.json" "t = next(iter(d['tensors'])); d['tensors'][t]['init'] = 'npy:$tmp/outside/a.npy'"
for verb in "run" "diagnose" "sweep --slurm"; do
  "$exe" $verb "$tmp/cfg/npy.tscfg.json" 2>"$tmp/err-npy"; rc=$?
  [ "$rc" = 2 ] || say "$verb with an .npy outside the folder: exit $rc, want 2"
  grep -q -- "--allow-outside-paths" "$tmp/err-npy" || { say "$verb: the .npy outside is not refused by consent"; cat "$tmp/err-npy"; }
  grep -q "NOT-AN-NPY-SECRET\|magic" "$tmp/err-npy" && say "$verb read the outside .npy before consent"
done

# --- 4. no predictable temporary names ----------------------------------------
# The old folder names were $TMPDIR/tilescope-<pid>-<n>: plant symlinks to a
# victim file at exactly those names for the check process (exec keeps the pid
# of the shell that planted them); check must never write through them.
echo "victim" > "$tmp/victim"
mkdir -p "$tmp/tmpdir"
# nvcc writes through temporary folders (NVRTC compiles in memory).
variant "$tmp/cfg/nvcc.tscfg.json" "d['kernel']['compiler'] = 'nvcc'"
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  TMPDIR="$tmp/tmpdir" TILESCOPE_CACHE_DIR="$tmp/cache" bash -c '
    for n in 0 1 2 3; do
      mkdir -p "$TMPDIR/tilescope-$$-$n"
      for f in output.txt kernel.cubin kernel.d; do ln -s "$1" "$TMPDIR/tilescope-$$-$n/$f"; done
    done
    exec "$2" check "$3" --device h100' _ "$tmp/victim" "$exe" "$tmp/cfg/nvcc.tscfg.json" 2>"$tmp/err11"; rc=$?
  [ "$rc" -le 1 ] || { say "check with planted symlinks: exit $rc"; cat "$tmp/err11"; }
fi
[ "$(cat "$tmp/victim")" = victim ] || say "a planted symlink was written through"

[ "$fail" = 0 ] && echo "security cases ok"
exit $fail
