#!/usr/bin/env bash
# `run --remote HOST` against a real sshd on localhost (docs/protocol.md, "Remote workers"): the
# config and the files it reads are copied into a fresh folder on the host, the
# workers load them from there, and the folder is removed afterwards. Also: an
# unreachable host, and a config that reads outside its folder.
# sshd runs from a throwaway configuration on a free port, with its own host
# and user keys; a wrapper `ssh` on PATH adds `-F` with the matching client
# configuration (and logs each command line), everything else is real ssh.
set -uo pipefail
exe=$(realpath "$1"); src=$2
sshd=$(command -v sshd || echo /usr/sbin/sshd)
if [ ! -x "$sshd" ] || ! command -v ssh-keygen >/dev/null; then
  echo "SKIP: no sshd/ssh-keygen (scripts/install-deps.sh installs openssh-server)"; exit 77
fi
tmp=$(mktemp -d); chmod 700 "$tmp"
cleanup() { [ -f "$tmp/sshd.pid" ] && kill "$(cat "$tmp/sshd.pid")" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
[ "$(id -u)" = 0 ] && mkdir -p /run/sshd  # privilege separation folder, when sshd runs as root
ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/user_key"
cp "$tmp/user_key.pub" "$tmp/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$tmp/remote-bin" "$tmp/bin"
ln -s "$exe" "$tmp/remote-bin/tilescope-run"
cat > "$tmp/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $tmp/host_key
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
SetEnv PATH=$tmp/remote-bin:/usr/local/bin:/usr/bin:/bin
EOF
cat > "$tmp/ssh_config" <<EOF
Host gpu-test gpu-dead
  HostName 127.0.0.1
  User $(id -un)
  IdentityFile $tmp/user_key
  IdentitiesOnly yes
  UserKnownHostsFile $tmp/known_hosts
  StrictHostKeyChecking accept-new
  ConnectTimeout 5
Host gpu-test
  Port $port
Host gpu-dead
  Port $dead
EOF
cat > "$tmp/bin/ssh" <<EOF
#!/usr/bin/env bash
printf '%s\n' "\$*" >> "$tmp/ssh.log"
exec $(command -v ssh) -F "$tmp/ssh_config" "\$@"
EOF
chmod +x "$tmp/bin/ssh"
"$sshd" -f "$tmp/sshd_config" -E "$tmp/sshd.log" || { echo "FAIL: sshd did not start"; cat "$tmp/sshd.log"; exit 1; }
for _ in $(seq 50); do ssh -F "$tmp/ssh_config" gpu-test true 2>/dev/null && break; sleep 0.1; done

mkdir -p "$tmp/configs"
cp "$src/kernels/gemm/gemm_tiled_f16.tscfg.json" "$src/kernels/gemm/gemm_tiled.cu" "$tmp/configs/"
run() { PATH="$tmp/bin:$PATH" "$exe" run "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"; }

# 1. A remote run: copied, loaded there, removed.
run "$tmp/configs/gemm_tiled_f16.tscfg.json" --remote gpu-test -o "$tmp/r.json"; rc=$?
case $rc in 0|1|3) ;; *) echo "FAIL: exit $rc"; cat "$tmp/err.txt" "$tmp/sshd.log"; fail=1 ;; esac
grep -Eq "^copied 2 file\(s\), .* to gpu-test:/.*/tilescope\.[A-Za-z0-9]{8}$" "$tmp/err.txt" \
  || { echo "FAIL: no 'copied 2 file(s)' line (config and gemm_tiled.cu)"; cat "$tmp/err.txt"; fail=1; }
staged=$(grep -Eo "tilescope\.[A-Za-z0-9]{8}" "$tmp/err.txt" | head -1)
grep "tilescope-run" "$tmp/ssh.log" | grep -q "/$staged/gemm_tiled_f16.tscfg.json" \
  || { echo "FAIL: the worker was not given the copied config"; cat "$tmp/ssh.log"; fail=1; }
if grep "tilescope-run" "$tmp/ssh.log" | grep -q "$tmp/configs"; then
  echo "FAIL: the worker was given the local path"; fail=1
fi
[ -n "$staged" ] && ls -d "${TMPDIR:-/tmp}/$staged" 2>/dev/null && { echo "FAIL: $staged was left on the host"; fail=1; }
if [ -f "$tmp/r.json" ]; then
  got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(str(p.get("extra",{}).get("worker_exit","-")) for p in r["points"]))' "$tmp/r.json")
  for e in $got; do
    case $e in -|3) ;; *) echo "FAIL: the remote worker ended with status $e (2: it could not load the copy)"; cat "$tmp/err.txt"; fail=1 ;; esac
  done
fi

# diagnose copies the same way.
PATH="$tmp/bin:$PATH" "$exe" diagnose "$tmp/configs/gemm_tiled_f16.tscfg.json" --remote gpu-test -o "$tmp/d.json" \
  >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
case $rc in 0|1|3) ;; *) echo "FAIL: diagnose --remote exit $rc"; cat "$tmp/err.txt"; fail=1 ;; esac
grep -Eq "^copied 2 file\(s\)" "$tmp/err.txt" || { echo "FAIL: diagnose --remote copied nothing"; cat "$tmp/err.txt"; fail=1; }

# 2. A host nobody answers on: "cannot reach host", not a kernel fault.
run "$tmp/configs/gemm_tiled_f16.tscfg.json" --remote gpu-dead -o "$tmp/dead.json"; rc=$?
[ "$rc" = 3 ] || { echo "FAIL: unreachable host exit $rc (expected 3)"; fail=1; }
grep -q "cannot reach host 'gpu-dead' over ssh" "$tmp/err.txt" || { echo "FAIL: no 'cannot reach host'"; cat "$tmp/err.txt"; fail=1; }
if grep -qi "illegal_address\|fault" "$tmp/err.txt"; then echo "FAIL: an unreachable host reads as a fault"; fail=1; fi

# 3. A kernel outside the config's folder: named, not copied; --remote-shared runs it in place.
mkdir -p "$tmp/configs/sub"
sed 's#"gemm_tiled.cu"#"../gemm_tiled.cu"#' "$tmp/configs/gemm_tiled_f16.tscfg.json" > "$tmp/configs/sub/outside.tscfg.json"
run "$tmp/configs/sub/outside.tscfg.json" --remote gpu-test --allow-outside-paths; rc=$?
[ "$rc" = 2 ] || { echo "FAIL: a source outside the folder: exit $rc (expected 2)"; fail=1; }
grep -q "kernel.source: .*outside the config's folder.*--remote-shared" "$tmp/err.txt" \
  || { echo "FAIL: the message does not name kernel.source and --remote-shared"; cat "$tmp/err.txt"; fail=1; }
run "$tmp/configs/sub/outside.tscfg.json" --remote gpu-test --remote-shared --allow-outside-paths -o "$tmp/shared.json"; rc=$?
case $rc in 0|1|3) ;; *) echo "FAIL: --remote-shared exit $rc"; cat "$tmp/err.txt"; fail=1 ;; esac
grep "tilescope-run" "$tmp/ssh.log" | tail -1 | grep -q "$tmp/configs/sub/outside.tscfg.json" \
  || { echo "FAIL: --remote-shared did not pass the local path"; fail=1; }

[ "$fail" = 0 ] && echo "remote runs through sshd ok"
exit $fail
