#!/usr/bin/env bash
# docs/triage.md, "The sandbox": `triage` imports every problem's reference and candidate, and a
# folder of problems is code from anyone. The runner runs them confined
# (docs/triage.md, "The sandbox"): a hostile problem that tries to read $HOME
# and an environment secret, write outside its entry's folder and into $HOME,
# reach a listener on 127.0.0.1, leave a process running after the triage, and
# rewrite another entry's runner.json achieves none of it; what it saw is
# written into its own entry folder (the one writable place) and checked here.
# A file-size and a CPU-time limit fire and are named in the entry. Where no
# sandbox starts (a stand-in bwrap that cannot confine), nothing runs without
# --allow-commands and the entry says why.
set -uo pipefail
exe=$(realpath "$1")
tmp=$(mktemp -d)
listener=""
trap '[ -n "$listener" ] && kill $listener 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
# What every reference here ends with: a model that does nothing, no inputs.
problem_tail() { printf 'class Model(object):\n    pass\ndef get_inputs():\n    return []\ndef get_init_inputs():\n    return []\n'; }

# PyTorch stand-in: the runner needs `import torch` to succeed before it imports
# the problem's files (the real one on a GPU host: bench/gpu_triage_sandbox.sh).
mkdir -p "$tmp/stand_in/torch" "$tmp/stand_in/numpy" "$tmp/home/.ssh" "$tmp/outside" "$tmp/p" \
  "$tmp/out" "$tmp/out2" "$tmp/out3"
printf '__version__ = "0+stand-in"\ndef manual_seed(seed):\n    pass\n' >"$tmp/stand_in/torch/__init__.py"
echo '' >"$tmp/stand_in/numpy/__init__.py"
echo "SECRET-KEY-MATERIAL" >"$tmp/home/.ssh/id_ed25519"

python3 - "$tmp/port" "$tmp/connected" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(120)
while True:
    try:
        c, _ = s.accept()
    except OSError:
        break
    open(sys.argv[2], "a").write("connection\n"); c.close()
PY
listener=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")

# 17: every escape tried, each recorded in seen.txt in the working directory.
cat >"$tmp/p/17_hostile.py" <<PY
import os, socket, sys, time
seen = open("seen.txt", "w")
def attempt(what, fn):
    try:
        seen.write("%s: ESCAPED %r\n" % (what, fn()))
    except Exception as e:
        seen.write("%s: refused %s\n" % (what, type(e).__name__))
    seen.flush()
attempt("outside", lambda: open("$tmp/outside/written", "w").write("x"))
attempt("home_write", lambda: open("$tmp/home/planted", "w").write("x"))
attempt("home_key", lambda: open("$tmp/home/.ssh/id_ed25519").read())
attempt("net", lambda: socket.create_connection(("127.0.0.1", $port), timeout=2).close())
seen.write("secret: %s\n" % os.environ.get("TS_TEST_SECRET_TOKEN"))
seen.write("cwd: %s\n" % os.getcwd())
for line in open("/proc/self/limits"):
    if line.startswith(("Max file size", "Max cpu time", "Max data size")):
        seen.write(line)
seen.flush()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for _ in range(600):
            open("heartbeat", "a").write("x")
            time.sleep(0.1)
    os._exit(0)
# The child's first heartbeat before the problem goes on: under load the entry
# could end, and its children be killed, before the child was ever scheduled.
for _ in range(100):
    if os.path.exists("heartbeat"):
        break
    time.sleep(0.05)
import torch  # noqa: E402
PY
problem_tail >>"$tmp/p/17_hostile.py"
echo 'class ModelNew(object): pass' >"$tmp/p/17_hostile_new.py"
# 18: rewrites entry 17's files, found from its own --out argument.
cat >"$tmp/p/18_forger.py" <<'PY'
import glob, os, sys
out = sys.argv[sys.argv.index("--out") + 1]
entries = os.path.dirname(os.path.abspath(out))
while entries != "/" and not entries.endswith(".d"):
    entries = os.path.dirname(entries)
for d in glob.glob(os.path.join(entries, "17_*")) + glob.glob(os.path.join(entries, "17_*", "*")):
    try:
        open(os.path.join(d, "FORGED_BY_18"), "w").write("x")
    except OSError:
        pass
PY
problem_tail >>"$tmp/p/18_forger.py"
echo 'class ModelNew(object): pass' >"$tmp/p/18_forger_new.py"
# 19: writes past the file-size limit; 20: spins past the CPU-time limit.
cat >"$tmp/p/19_bigfile.py" <<'PY'
open("big.bin", "wb").write(b"\0" * (4 << 20))
PY
problem_tail >>"$tmp/p/19_bigfile.py"
echo 'class ModelNew(object): pass' >"$tmp/p/19_bigfile_new.py"
printf 'class Model(object):\n    def to(self, d):\n        return self\n    def eval(self):\n        return self\ndef get_inputs():\n    return []\ndef get_init_inputs():\n    return []\n' \
  >"$tmp/p/20_spin.py"
printf 'while True:\n    pass\nclass ModelNew(object):\n    pass\n' >"$tmp/p/20_spin_new.py"

export HOME=$tmp/home TS_TEST_SECRET_TOKEN=ghp_not_a_real_token TILESCOPE_TRIAGE_DEVICE=cpu
export PYTHONPATH=$tmp/stand_in TILESCOPE_CACHE_DIR=$tmp/cache
probe=$(bwrap --unshare-all --die-with-parent --ro-bind / / true 2>&1) && sandbox=1 || sandbox=0
if [ $sandbox = 1 ]; then
  timeout 300 "$exe" triage "$tmp/p" --depth check --capture never -o "$tmp/out/t.json" --timeout 60 \
    --max-file-bytes 1000000 --max-cpu-s 2 >"$tmp/log" 2>&1
  echo "triage exit: $?"
  sleep 1.5
  d="$tmp/out/t.json.d"
  seen=$(cat "$d"/*17_hostile*/sandbox/seen.txt 2>/dev/null)
  [ -n "$seen" ] || say "the hostile problem's seen.txt is missing: $(ls -R "$d" | head -20; tail -5 "$tmp/log")"
  echo "$seen" | sed 's/^/  seen: /'
  echo "$seen" | grep -q ESCAPED && say "an escape succeeded: $(echo "$seen" | grep ESCAPED)"
  for what in outside home_write home_key net; do
    echo "$seen" | grep -q "^$what: refused" || say "$what was not refused"
  done
  echo "$seen" | grep -q "ghp_not_a_real_token" && say "the environment secret reached the problem"
  echo "$seen" | grep -q "^Max file size *1000000 *1000000" || say "RLIMIT_FSIZE not set soft and hard"
  [ -e "$tmp/outside/written" ] || [ -e "$tmp/home/planted" ] && say "a file was written outside"
  [ -s "$tmp/connected" ] && say "the listener on 127.0.0.1 was reached"
  ls "$d"/*17_hostile*/FORGED_BY_18 "$d"/*17_hostile*/*/FORGED_BY_18 >/dev/null 2>&1 &&
    say "entry 18 wrote into entry 17's folder"
  hb="$d/$(ls "$d" | grep 17_hostile)/sandbox/heartbeat"
  [ -e "$hb" ] || say "the setsid child never ran (no heartbeat): the test would prove nothing"
  n1=$(stat -c %s "$hb" 2>/dev/null || echo 0); sleep 1; n2=$(stat -c %s "$hb" 2>/dev/null || echo 0)
  [ "$n1" = "$n2" ] || say "the setsid child outlived the triage ($n1 -> $n2 heartbeats)"
  python3 - "$tmp/out/t.json" <<'PY' || fail=1
import json, sys
t = json.load(open(sys.argv[1]))
ents = {e["name"]: e for e in t["entries"]}
bad = 0
for e in t["entries"]:
    sb = e.get("sandbox") or e.get("extra", {}).get("sandbox")
    print("  %-12s %-8s %-14s %s" % (e["name"], e.get("status"), e.get("verdict", ""), (e.get("message") or e.get("note") or "")[:150]))
    if not sb or sb.get("kind") != "bubblewrap":
        print("FAIL: %s: no bubblewrap sandbox recorded: %r" % (e["name"], sb)); bad = 1
def text(e):
    return json.dumps(e)
if "RLIMIT_FSIZE" not in text(ents.get("19_bigfile", {})):
    print("FAIL: 19_bigfile does not name RLIMIT_FSIZE"); bad = 1
if "RLIMIT_CPU" not in text(ents.get("20_spin", {})):
    print("FAIL: 20_spin does not name RLIMIT_CPU"); bad = 1
sys.exit(bad)
PY
else
  echo "bubblewrap cannot confine here ($probe): the refusal is tested below only"
fi

# No sandbox: a bwrap that cannot confine. Nothing of the problem runs without
# --allow-commands; the entry is not run and says why.
mkdir -p "$tmp/nobwrap"
printf '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n' >"$tmp/nobwrap/bwrap"
chmod +x "$tmp/nobwrap/bwrap"
rm -rf "$tmp/p2"; mkdir -p "$tmp/p2"
printf 'open("%s", "w").write("x")\nclass Model(object):\n    pass\ndef get_inputs():\n    return []\n' \
  "$tmp/outside/unconfined" >"$tmp/p2/21_plain.py"
echo 'class ModelNew(object): pass' >"$tmp/p2/21_plain_new.py"
PATH=$tmp/nobwrap:$PATH timeout 120 "$exe" triage "$tmp/p2" --depth check --capture never \
  -o "$tmp/out2/t.json" --timeout 30 >"$tmp/log2" 2>&1
[ -e "$tmp/outside/unconfined" ] && say "without a sandbox the problem ran anyway"
python3 - "$tmp/out2/t.json" <<'PY' || fail=1
import json, sys
e = json.load(open(sys.argv[1]))["entries"][0]
note = e.get("note", "")
print("  no sandbox: %s: %s" % (e.get("status"), note[:200]))
ok = e.get("status") == "not_run" and "--allow-commands" in note and "bubblewrap" in note
sys.exit(0 if ok else 1)
PY
[ $? = 0 ] || say "the entry without a sandbox is not refused with a reason"
# With consent it runs unconfined (the user trusts these problems).
PATH=$tmp/nobwrap:$PATH timeout 120 "$exe" triage "$tmp/p2" --depth check --capture never --allow-commands \
  -o "$tmp/out3/t.json" --timeout 30 >"$tmp/log3" 2>&1
[ -e "$tmp/outside/unconfined" ] || say "--allow-commands without a sandbox did not run the problem"

[ $fail = 0 ] && echo "triage sandbox: all checks passed"
exit $fail
