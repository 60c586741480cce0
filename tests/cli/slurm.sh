#!/usr/bin/env bash
# `sweep --slurm` through a real single-node Slurm (docs/cli.md, "--slurm"): munged, slurmctld and
# slurmd start on localhost from a throwaway configuration (own munge key, free
# ports, state and spool folders in a temporary folder), then
#   1. `sweep --shard K/N` alone writes its part, with extra.shard, also without a GPU;
#   2. `--dry-run` prints the batch script and the sbatch command, submitting nothing;
#   3. a sweep in 3 tasks gathers every point with the no-GPU outcome (exit 3, the
#      merged report written);
#   4. a sweep in 4 tasks whose task 1 is cancelled (scancel) while it runs is
#      resubmitted and gathered, and whose task 2 fails every time is marked with
#      its Slurm state and log without losing the other tasks' points;
#   5. stopping the command (SIGTERM) cancels its job.
# This machine and CI have no GPU: every captured point ends no_gpu (docs/report.md).
set -uo pipefail
exe=$(realpath "$1"); src=$2
fail=0
py() { python3 -c "$@"; }

tmp=$(mktemp -d /tmp/tilescope-slurm.XXXXXX)  # short: munge's socket path must fit a sun_path
chmod 755 "$tmp"
pids=()
cleanup() {
  if [ -f "$tmp/slurm.conf" ] && [ -n "${SLURM_CONF:-}" ]; then
    ids=$(squeue --noheader --format=%A 2>/dev/null | sort -u)
    [ -n "$ids" ] && scancel $ids 2>/dev/null
    for _ in $(seq 20); do [ -z "$(squeue --noheader 2>/dev/null)" ] && break; sleep 0.25; done
  fi
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do
    [ -f "$tmp/$f" ] && kill "$(cat "$tmp/$f")" 2>/dev/null
  done
  # Job steps left behind by our slurmd: those whose environment names our slurm.conf.
  for pid in $(pgrep -x slurmstepd 2>/dev/null); do
    { tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null | grep -qx "SLURM_CONF=$tmp/slurm.conf" && kill -9 "$pid" 2>/dev/null
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 0.5
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/cfg"
cp "$src/kernels/gemm/gemm_tiled_sweep.tscfg.json" "$src/kernels/gemm/gemm_tiled.cu" "$tmp/cfg/"
cfg="$tmp/cfg/gemm_tiled_sweep.tscfg.json"   # 16 points

# 1. A shard on its own (no Slurm needed): points 4-7 of 16, its part written without a GPU.
"$exe" sweep "$cfg" --shard 1/4 -o "$tmp/shard.json" >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
case $rc in 0|1|3) ;; *) echo "FAIL: --shard 1/4 exit $rc"; cat "$tmp/err.txt"; fail=1 ;; esac
grep -q "4 capture(s)" "$tmp/err.txt" || { echo "FAIL: --shard 1/4 did not run 4 captures"; cat "$tmp/err.txt"; fail=1; }
py 'import json,sys; r=json.load(open(sys.argv[1])); s=r["extra"]["shard"]
assert s=={"index":1,"count":4,"points":[4,5,6,7]}, s
assert [p["index"] for p in r["points"]]==[4,5,6,7], r["points"]' "$tmp/shard.json" \
  || { echo "FAIL: the shard's report"; fail=1; }
"$exe" sweep "$cfg" --shard 4/4 >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "K must be between 0 and N-1" "$tmp/err.txt" || { echo "FAIL: --shard 4/4: exit $rc"; cat "$tmp/err.txt"; fail=1; }
# Without Slurm's tools: exit 3 (this machine cannot, the command is right), named.
PATH=/nonexistent "$exe" sweep "$cfg" --slurm --slurm-dir "$tmp/none" >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
[ "$rc" = 3 ] && grep -q "sbatch not found on PATH" "$tmp/err.txt" || { echo "FAIL: no sbatch: exit $rc"; cat "$tmp/err.txt"; fail=1; }
[ -e "$tmp/none" ] && { echo "FAIL: a folder was made without sbatch"; fail=1; }

# A controller that does not answer: exit 3, and no folder left per attempt
# (each failed submit left NAME.slurm-STAMP with its script).
mkdir -p "$tmp/fakebin"
cat > "$tmp/fakebin/sbatch" <<'SB'
#!/bin/sh
echo "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)" >&2
exit 1
SB
chmod +x "$tmp/fakebin/sbatch"
for attempt in 1 2; do
  PATH="$tmp/fakebin:$PATH" "$exe" sweep "$cfg" --slurm >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
  [ "$rc" = 3 ] && grep -q "Unable to contact slurm controller" "$tmp/err.txt" \
    || { echo "FAIL: unreachable controller (attempt $attempt): exit $rc"; cat "$tmp/err.txt"; fail=1; }
done
left=$(find "$tmp/cfg" -maxdepth 1 -name '*.slurm-*' | wc -l)
[ "$left" = 0 ] || { echo "FAIL: $left folder(s) left by failed submissions"; ls "$tmp/cfg"; fail=1; }

munged=$(command -v munged || echo /usr/sbin/munged)
slurmctld=$(command -v slurmctld || echo /usr/sbin/slurmctld)
slurmd=$(command -v slurmd || echo /usr/sbin/slurmd)
for t in "$munged" "$slurmctld" "$slurmd"; do
  if [ ! -x "$t" ] || ! command -v sbatch >/dev/null; then
    [ "$fail" = 0 ] || exit 1
    echo "SKIP: no $t or sbatch (scripts/install-deps.sh installs slurm-wlm and munge)"; exit 77
  fi
done

# ---------------------------------------------------------------- the cluster
host=$(hostname -s); user=$(id -un)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/munge"; chmod 700 "$tmp/munge"
free_port() { py 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cport=$(free_port); dport=$(free_port)
head -c 1024 /dev/urandom > "$tmp/munge/munge.key"; chmod 400 "$tmp/munge/munge.key"
"$munged" --force --socket="$tmp/munge/munge.sock" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" \
  || { echo "FAIL: munged did not start"; cat "$tmp/log/munged.log"; exit 1; }
# One node with 4 CPUs' worth of slots (config_overrides: whatever this machine has),
# so that the 4 tasks run at once; process tracking without cgroups.
cat > "$tmp/slurm.conf" <<EOF
ClusterName=tilescope-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=300
KillWait=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
"$slurmctld" -c -f "$tmp/slurm.conf" || { echo "FAIL: slurmctld did not start"; cat "$tmp/log/slurmctld.log"; exit 1; }
"$slurmd" -f "$tmp/slurm.conf" -N "$host" || { echo "FAIL: slurmd did not start"; cat "$tmp/log/slurmd.log"; exit 1; }
state=
for _ in $(seq 100); do
  state=$(sinfo --noheader --Node --format=%t 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.2
done
if [ "$state" != idle ]; then
  echo "FAIL: the node is '$state', not idle, after 20 s"; tail -20 "$tmp/log/slurmctld.log" "$tmp/log/slurmd.log"; exit 1
fi

# ---------------------------------------------------------------- 2. --dry-run
jobs_before=$(squeue --noheader --states=all | wc -l)
"$exe" sweep "$cfg" --slurm --shards 4 --slurm-dir "$tmp/dry" --trials 2 --sbatch="--time=5 --comment='a b'" \
  --dry-run >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
[ "$rc" = 0 ] || { echo "FAIL: --dry-run exit $rc"; cat "$tmp/err.txt"; fail=1; }
grep -q -- "--shard \"\${SLURM_ARRAY_TASK_ID}/4\"" "$tmp/out.txt" || { echo "FAIL: the script names no --shard"; cat "$tmp/out.txt"; fail=1; }
grep -q -- "-o '$tmp/dry/part-'\"\${SLURM_ARRAY_TASK_ID}\".json '--trials' '2'" "$tmp/out.txt" \
  || { echo "FAIL: the script's part path or --trials"; cat "$tmp/out.txt"; fail=1; }
grep -q "^sbatch --parsable --array=0-3 .* --time=5 '--comment=a b' $tmp/dry/tilescope-sweep.sbatch$" "$tmp/out.txt" \
  || { echo "FAIL: the sbatch command"; cat "$tmp/out.txt"; fail=1; }
[ -e "$tmp/dry" ] && { echo "FAIL: --dry-run made $tmp/dry"; fail=1; }
[ "$(squeue --noheader --states=all | wc -l)" = "$jobs_before" ] || { echo "FAIL: --dry-run submitted a job"; fail=1; }
"$exe" sweep "$cfg" --slurm --sbatch="--array=0-9" --dry-run >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
[ "$rc" = 2 ] && grep -q -- "--array is set by tilescope-run" "$tmp/err.txt" || { echo "FAIL: --sbatch --array: exit $rc"; cat "$tmp/err.txt"; fail=1; }

# ---------------------------------------------------------------- 3. every point, no GPU
timeout 120 "$exe" sweep "$cfg" --slurm --shards 3 --slurm-dir "$tmp/clean" --slurm-poll 0.5 -o "$tmp/clean.json" \
  >"$tmp/out.txt" 2>"$tmp/clean.err"; rc=$?
[ "$rc" = 3 ] || { echo "FAIL: a sweep on nodes without a GPU: exit $rc (expected 3)"; cat "$tmp/clean.err"; fail=1; }
grep -q "no GPU or CUDA driver on the Slurm nodes" "$tmp/clean.err" || { echo "FAIL: no 'no GPU' message"; cat "$tmp/clean.err"; fail=1; }
grep -q "16/16 points gathered" "$tmp/clean.err" || { echo "FAIL: no progress line with every point"; cat "$tmp/clean.err"; fail=1; }
py 'import json,sys; r=json.load(open(sys.argv[1]))
assert r["verb"]=="sweep"
assert [p["index"] for p in r["points"]]==list(range(16)), [p["index"] for p in r["points"]]
for p in r["points"]:
    e=p["extra"]; assert e.get("no_gpu") is True and e.get("worker_exit")==3 and "scheduler_error" not in e, e
t=r["extra"]["slurm"]["tasks"]
assert [x["points"] for x in t]==[list(range(0,6)),list(range(6,11)),list(range(11,16))], t
assert all(x["gathered"] and x["attempts"]==1 for x in t), t
assert len(r["matrix"]["points"])==16 and "shard" not in r["extra"]' "$tmp/clean.json" \
  || { echo "FAIL: the merged report of the clean run"; fail=1; }

# ---------------------------------------------------------------- 4. cancelled and failing tasks
# The tasks run a wrapper: task 1's first attempt waits to be cancelled, task 2 always fails.
cat > "$tmp/wrap.sh" <<EOF
#!/usr/bin/env bash
case "\$SLURM_ARRAY_TASK_ID" in
  1) if [ ! -e "$tmp/task1.started" ]; then
       echo "\${SLURM_ARRAY_JOB_ID}_\${SLURM_ARRAY_TASK_ID}" > "$tmp/task1.tmp"; mv "$tmp/task1.tmp" "$tmp/task1.started"
       sleep 120; exit 0
     fi ;;
  2) echo "task 2 fails on purpose" >&2; exit 42 ;;
esac
exec "$exe" "\$@"
EOF
chmod +x "$tmp/wrap.sh"
timeout 170 "$exe" sweep "$cfg" --slurm --shards 4 --trials 2 --slurm-dir "$tmp/run" --slurm-exe "$tmp/wrap.sh" \
  --slurm-poll 0.5 --slurm-retries 1 -o "$tmp/merged.json" >"$tmp/out.txt" 2>"$tmp/run.err" &
sweep_pid=$!; pids+=("$sweep_pid")
for _ in $(seq 240); do [ -e "$tmp/task1.started" ] && break; sleep 0.25; done
if [ -e "$tmp/task1.started" ]; then
  scancel "$(cat "$tmp/task1.started")" || { echo "FAIL: scancel"; fail=1; }
else
  echo "FAIL: task 1 never started"; fail=1
fi
wait "$sweep_pid"; rc=$?
[ "$rc" = 3 ] || { echo "FAIL: a sweep with a lost task: exit $rc (expected 3)"; cat "$tmp/run.err"; fail=1; }
grep -q "resubmitted .*_1 CANCELLED" "$tmp/run.err" || { echo "FAIL: the cancelled task was not resubmitted"; cat "$tmp/run.err"; fail=1; }
grep -q "resubmitted .*_2 FAILED" "$tmp/run.err" || { echo "FAIL: the failed task was not resubmitted"; cat "$tmp/run.err"; fail=1; }
grep -q "tilescope-run: error: Slurm array task 2 .* ended FAILED (exit 42:0) after 2 attempts" "$tmp/run.err" \
  || { echo "FAIL: the lost task is not named on stderr"; cat "$tmp/run.err"; fail=1; }
py 'import json,sys,os; r=json.load(open(sys.argv[1]))
idx=[(p["index"],p["trial"]) for p in r["points"]]
assert idx==[(i,t) for i in range(16) for t in range(2)], idx
for p in r["points"]:
    e=p["extra"]
    if 8<=p["index"]<12:
        m=e["scheduler_error"]
        assert m.startswith("Slurm array task 2 (job ") and "ended FAILED (exit 42:0) after 2 attempts" in m, m
        log=m.split("its log: ")[1]
        assert os.path.isfile(log) and "task 2 fails on purpose" in open(log).read(), log
        assert "no_gpu" not in e, e
    else:
        assert e.get("no_gpu") is True and e.get("worker_exit")==3 and "scheduler_error" not in e, (p["index"], e)
t=r["extra"]["slurm"]["tasks"]
assert t[1]["attempts"]==2 and t[1]["gathered"] and t[1]["points"]==[4,5,6,7], t[1]
assert t[2]["attempts"]==2 and not t[2]["gathered"] and t[2]["state"]=="FAILED" and t[2]["exit_code"]=="42:0", t[2]
assert t[0]["attempts"]==1 and t[3]["attempts"]==1 and t[0]["gathered"] and t[3]["gathered"], t
assert len(r["extra"]["slurm"]["jobs"])>=2, r["extra"]["slurm"]
assert r["matrix"]["trials"]==2 and len(r["matrix"]["verdicts"])==16' "$tmp/merged.json" \
  || { echo "FAIL: the merged report of the run with a cancelled and a failing task"; cat "$tmp/run.err"; fail=1; }

# ---------------------------------------------------------------- 5. stopping cancels the job
printf '#!/usr/bin/env bash\nsleep 120\n' > "$tmp/sleep.sh"; chmod +x "$tmp/sleep.sh"
"$exe" sweep "$cfg" --slurm --shards 2 --slurm-dir "$tmp/stop" --slurm-exe "$tmp/sleep.sh" --slurm-poll 0.5 \
  -o "$tmp/stop.json" >"$tmp/out.txt" 2>"$tmp/stop.err" &
stop_pid=$!; pids+=("$stop_pid")
job=
for _ in $(seq 120); do
  job=$(grep -o "Slurm task(s), job [0-9]*" "$tmp/stop.err" | grep -o "[0-9]*$")
  [ -n "$job" ] && grep -q "2 running" "$tmp/stop.err" && break
  sleep 0.25
done
kill -TERM "$stop_pid"; wait "$stop_pid"; rc=$?
[ "$rc" = 143 ] || { echo "FAIL: SIGTERM: exit $rc (expected 143)"; cat "$tmp/stop.err"; fail=1; }
grep -q "stopped by SIGTERM: cancelled job(s) $job; no report written" "$tmp/stop.err" \
  || { echo "FAIL: no 'cancelled job(s) $job'"; cat "$tmp/stop.err"; fail=1; }
for _ in $(seq 40); do
  [ "$(squeue --noheader --states=all --jobs="$job" --format=%T | sort -u)" = CANCELLED ] && break; sleep 0.25
done
[ "$(squeue --noheader --states=all --jobs="$job" --format=%T | sort -u)" = CANCELLED ] \
  || { echo "FAIL: job $job was not cancelled"; squeue --states=all --jobs="$job"; fail=1; }
[ -e "$tmp/stop.json" ] && { echo "FAIL: a stopped sweep wrote a report"; fail=1; }

if [ -n "${TILESCOPE_TEST_VERBOSE:-}" ]; then
  for f in clean.err run.err stop.err; do echo "== $f"; cat "$tmp/$f"; done
fi
[ "$fail" = 0 ] && echo "sweep --slurm through slurmctld/slurmd ok"
exit $fail
