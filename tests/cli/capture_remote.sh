#!/usr/bin/env bash
# `capture --remote HOST`: a folder made on HOST (mktemp), the capture run there,
# copied back, the folder removed (docs/capture.md, "Remote": the removal refused capture's own
# folder name and every remote capture exited 2). A stand-in `ssh` on PATH runs the
# remote command here, HOST's /tmp being $tmp/host_tmp and HOST's tilescope-run a
# script that writes a capture folder as a capture does. A host that answers mktemp
# with a folder TileScope did not make gets nothing removed and no command run.
set -uo pipefail
exe=$(realpath "$1")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -p "$tmp/bin" "$tmp/host_tmp" "$tmp/host_bin"
cat > "$tmp/bin/ssh" <<'SSH'
#!/usr/bin/env bash
while [ "${1:-}" = "-o" ]; do shift 2; done
[ "${1:-}" = "--" ] && shift   # the end of ssh's options, before the host
host=$1; shift
cmd="$*"
if [ -n "${FAKE_MKTEMP:-}" ] && [ "${cmd#mktemp }" != "$cmd" ]; then echo "$FAKE_MKTEMP"; exit 0; fi
cmd=${cmd//\/tmp\/tilescope-/$HOST_TMP/tilescope-}
cmd=${cmd//tilescope-run /$HOST_BIN/tilescope-run }
echo "ssh $host: $cmd" >> "$SSH_LOG"
exec sh -c "$cmd"
SSH
cat > "$tmp/host_bin/tilescope-run" <<'HOST'
#!/usr/bin/env bash
# HOST's tilescope-run: `capture -o DIR ...` writes one launch recorded without a config.
while [ $# -gt 0 ]; do [ "$1" = -o ] && { dir=$2; break; }; shift; done
mkdir -p "$dir"
cat >"$dir/capture.json" <<'JSON'
{"schema": "tilescope.capture/1", "command": ["python3", "prog.py"], "cwd": "/home/u", "host": "gpu-host",
 "started_at": "2026-12-01T00:00:00Z",
 "exit": {"status": "exited", "code": 0, "message": "exited with status 0", "seconds": 1.0},
 "environment": {}, "selection": {},
 "launches": [{"id": "0001", "index": 0, "recorder": "cuda", "language": "cuda", "kernel": "k",
               "grid": [1, 1, 1], "block": [32, 1, 1], "kernel_ns": null,
               "reason": "a struct parameter passed by value"}]}
JSON
echo "tensors" > "$dir/tensors.bin"
exit 0
HOST
chmod +x "$tmp/bin/ssh" "$tmp/host_bin/tilescope-run"
export SSH_LOG="$tmp/ssh.log" HOST_TMP="$tmp/host_tmp" HOST_BIN="$tmp/host_bin" PATH="$tmp/bin:$PATH"

# 1. The capture comes back, capture.json names the host, the host's folder is gone.
"$exe" capture -o "$tmp/out" --remote gpu-host -- python3 prog.py >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
[ "$rc" = 0 ] || { echo "FAIL: capture --remote exited $rc"; cat "$tmp/err.txt"; fail=1; }
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("remote") != "gpu-host")' \
  "$tmp/out/capture.json" 2>/dev/null || { echo "FAIL: capture.json has no \"remote\": \"gpu-host\""; fail=1; }
[ -f "$tmp/out/tensors.bin" ] || { echo "FAIL: the capture's files were not copied back"; fail=1; }
left=$(ls -A "$tmp/host_tmp")
[ -z "$left" ] || { echo "FAIL: left on the host: $left"; fail=1; }
grep -q "rm -rf -- '$tmp/host_tmp/tilescope-capture\.[A-Za-z0-9]\{6\}'" "$tmp/ssh.log" ||
  { echo "FAIL: the host's folder was not removed by rm -rf"; cat "$tmp/ssh.log"; fail=1; }
if grep -q "not a folder TileScope made" "$tmp/err.txt"; then echo "FAIL: cleanup refused"; fail=1; fi

# 2. A host answering mktemp with a folder TileScope did not make: exit 3, nothing run, nothing removed.
: > "$tmp/ssh.log"
FAKE_MKTEMP=/home/u "$exe" capture -o "$tmp/out2" --remote gpu-host -- python3 prog.py \
  >"$tmp/out2.txt" 2>"$tmp/err2.txt"; rc=$?
[ "$rc" = 3 ] || { echo "FAIL: a foreign mktemp answer exited $rc, not 3"; cat "$tmp/err2.txt"; fail=1; }
grep -q "'/home/u' is not a folder TileScope made on the host" "$tmp/err2.txt" ||
  { echo "FAIL: the message does not name the folder"; cat "$tmp/err2.txt"; fail=1; }
if [ -s "$tmp/ssh.log" ]; then echo "FAIL: commands ran on the host:"; cat "$tmp/ssh.log"; fail=1; fi

[ "$fail" = 0 ] && echo "capture --remote ok"
exit $fail
