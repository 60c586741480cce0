#!/usr/bin/env bash
# docs/security.md, "Python kernels": compiling a Triton config imports its .py, so the file's
# top-level code runs. Without --allow-commands it runs confined (docs/security.md,
# "Python kernels"): a hostile kernel file that tries to write a file in $HOME,
# read ~/.ssh, open a socket to a listener on this machine, and write beside the
# config achieves none of it, under `check`, through the import-failure fallback,
# and under `init-triton`; the kernel still compiles. With --allow-commands the
# file is imported as before (its write lands). A file that prints without end
# at import is stopped at the helper's output limit with a message naming it.
set -uo pipefail
exe=$(realpath "$1"); src=$2
py=${TILESCOPE_PYTHON:-}
[ -z "$py" ] && [ -x "$src/build-deps/triton-venv/bin/python3" ] && py="$src/build-deps/triton-venv/bin/python3"
[ -z "$py" ] && py=python3
"$py" -c 'import importlib.util, sys; sys.exit(0 if importlib.util.find_spec("triton") else 1)' 2>/dev/null \
  || { echo "no Triton for $py: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'kill $listener 2>/dev/null; rm -rf "$tmp"' EXIT
export TILESCOPE_CACHE_DIR="$tmp/cache"
fail=0
say() { echo "FAIL: $*"; fail=1; }

home="$tmp/home"; mkdir -p "$home/.ssh" "$tmp/cfg/fallback"
echo "SECRET-KEY-MATERIAL" > "$home/.ssh/id_rsa"
# A listener that records any connection.
python3 - "$tmp/port" "$tmp/connected" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept(); open(sys.argv[2], "a").write("connection\n"); c.close()
PY
listener=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")

# The hostile preamble, then the zoo's add kernel (its config beside it).
hostile() {  # hostile OUT.py [EXTRA-FIRST-LINE]
  {
    [ -n "${2:-}" ] && echo "$2"
    cat <<PY
import socket as _s
for _what, _try in [
    ("home", lambda: open("$home/pwned_home", "w").write("x")),
    ("beside", lambda: open("$tmp/cfg/pwned_beside", "w").write("x")),
    ("tmp", lambda: open("/tmp/pwned_tilescope_$$", "w").write("x")),
    ("ssh", lambda: print("LEAK:" + open("$home/.ssh/id_rsa").read())),
    ("net", lambda: _s.create_connection(("127.0.0.1", $port), timeout=2)),
]:
    try:
        _try()
    except Exception as _e:
        pass
PY
    cat "$src/kernels/triton/add.py"
  } > "$1"
}
hostile "$tmp/cfg/add.py"
hostile "$tmp/cfg/fallback/add.py" "import torch_not_installed_xyz"
for d in "$tmp/cfg" "$tmp/cfg/fallback"; do
  python3 - "$src/kernels/triton/add.tscfg.json" "$d/add.tscfg.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("reference", None); d["reference"] = {"op": "none"}
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
done

nothing_ran() {  # nothing_ran CASE
  for f in "$home/pwned_home" "$tmp/cfg/pwned_beside" "/tmp/pwned_tilescope_$$"; do
    [ -e "$f" ] && say "$1: the kernel file wrote $f"
  done
  [ -e "$tmp/connected" ] && say "$1: the kernel file reached a socket"
  grep -rq "SECRET-KEY-MATERIAL" "$tmp/out" 2>/dev/null && say "$1: ~/.ssh was read into the output"
  rm -f "$home/pwned_home" "$tmp/cfg/pwned_beside" "/tmp/pwned_tilescope_$$" "$tmp/connected"
}
compiled() {  # compiled CASE REPORT
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]; c=p["compile"]; sys.exit(0 if c["ok"] and c.get("regs",0)>0 and p["launch"]["block"][0]==128 else 1)' "$2" \
    || { say "$1: the kernel did not compile as before"; head -c 2000 "$2"; }
}
mkdir -p "$tmp/out"
HOME="$home" "$exe" check "$tmp/cfg/add.tscfg.json" --device h100 -o "$tmp/out/check.json" >"$tmp/out/check.err" 2>&1; rc=$?
[ "$rc" = 0 ] || { say "check: exit $rc"; cat "$tmp/out/check.err"; }
nothing_ran check; compiled check "$tmp/out/check.json"

HOME="$home" "$exe" check "$tmp/cfg/fallback/add.tscfg.json" --device h100 -o "$tmp/out/fb.json" >"$tmp/out/fb.err" 2>&1; rc=$?
[ "$rc" = 0 ] || { say "check (fallback): exit $rc"; cat "$tmp/out/fb.err"; }
nothing_ran fallback; compiled fallback "$tmp/out/fb.json"

(cd "$tmp/cfg" && HOME="$home" "$exe" init-triton add.py::add_kernel -o "$tmp/out/init.tscfg.json" >"$tmp/out/init.err" 2>&1); rc=$?
[ "$rc" = 0 ] || { say "init-triton: exit $rc"; cat "$tmp/out/init.err"; }
nothing_ran init-triton

# No sandbox here (no bwrap on PATH): nothing of the file runs, and the compile says why.
TILESCOPE_CACHE_DIR="$tmp/cache3" HOME="$home" PATH=/nonexistent "$exe" check "$tmp/cfg/add.tscfg.json" --device h100 \
  -o "$tmp/out/nosandbox.json" >"$tmp/out/nosandbox.err" 2>&1; rc=$?
[ "$rc" = 1 ] || say "no sandbox: exit $rc, want 1"
nothing_ran no-sandbox
grep -q "bubblewrap" "$tmp/out/nosandbox.err" && grep -q -- "--allow-commands" "$tmp/out/nosandbox.err" \
  || { say "no sandbox: the finding does not say why or how"; cat "$tmp/out/nosandbox.err"; }

# Consent: the full import, as before.
TILESCOPE_CACHE_DIR="$tmp/cache2" HOME="$home" "$exe" check "$tmp/cfg/add.tscfg.json" --device h100 --allow-commands >/dev/null 2>&1
[ -e "$home/pwned_home" ] || say "check --allow-commands did not import the file unconfined"
rm -f "$home/pwned_home" "$tmp/cfg/pwned_beside" "/tmp/pwned_tilescope_$$" "$tmp/connected"

# N15: output without end at import is cut at the helper's limit, with a message.
mkdir -p "$tmp/flood"
{ echo 'import sys'; echo 'while True: sys.stdout.write("x" * 65536)'; cat "$src/kernels/triton/add.py"; } > "$tmp/flood/add.py"
cp "$tmp/cfg/add.tscfg.json" "$tmp/flood/"
start=$(date +%s)
(ulimit -v 4000000; "$exe" check "$tmp/flood/add.tscfg.json" --device h100 -o "$tmp/out/flood.json" >"$tmp/out/flood.err" 2>&1); rc=$?
[ "$rc" = 1 ] || { say "flood: exit $rc, want 1 (a compile error)"; tail -3 "$tmp/out/flood.err"; }
[ $(( $(date +%s) - start )) -lt 60 ] || say "flood: took over 60 s"
grep -q "more than 16 MiB" "$tmp/out/flood.json" || say "flood: the report does not name the output limit"

[ "$fail" = 0 ] && echo "triton sandbox cases ok"
exit $fail
