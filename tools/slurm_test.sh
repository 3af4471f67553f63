#!/usr/bin/env bash
# End-to-end test of `ssdtwin sweep --backend slurm` on a private single-node
# Slurm cluster (issue 14; CTest label `slurm`, not in the default run):
#   bash tools/slurm_test.sh [SSDTWIN [SWEEP.yaml]]
# (defaults build/ssdtwin, tests/sweeps/slurm_small.yaml). Installs Slurm and
# munge (tools/slurm_cluster.sh install), starts the cluster, submits the
# sweep with sbatch, waits for the array job, collects it, runs the same
# sweep locally and checks both results.csv are identical. Exits 0 on
# equality. The cluster is stopped on exit unless it was running before
# (or SSDTWIN_SLURM_KEEP=1); the work folder is removed after a pass unless
# SSDTWIN_SLURM_KEEP=1 (it is kept, and named, after a failure).
# Environment: SSDTWIN_SLURM_TEST_TIMEOUT (seconds to wait for the job, 900).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLUSTER=$ROOT/tools/slurm_cluster.sh
SSDTWIN=$(realpath "${1:-$ROOT/build/ssdtwin}")
SWEEP=$(realpath "${2:-$ROOT/tests/sweeps/slurm_small.yaml}")
TIMEOUT=${SSDTWIN_SLURM_TEST_TIMEOUT:-900}
KEEP=${SSDTWIN_SLURM_KEEP:-0}

say() { echo "slurm_test: $*" >&2; }
fail() { say "FAIL: $*"; exit 1; }
[ -x "$SSDTWIN" ] || fail "no ssdtwin binary at $SSDTWIN (build first: tools/build.sh build)"
[ -f "$SWEEP" ] || fail "no sweep file $SWEEP"

T0=$(date +%s)
WORK=$(mktemp -d /tmp/ssdtwin-slurm-test.XXXXXX)
SLURM_OUT=$WORK/slurm
LOCAL_OUT=$WORK/local
stop_cluster=1
passed=0

cleanup() {
  local rc=$?
  if ((stop_cluster)) && [ "$KEEP" != 1 ]; then "$CLUSTER" stop || true; fi
  if ((passed)) && [ "$KEEP" != 1 ]; then
    rm -rf "$WORK"
  else
    say "work folder kept: $WORK"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$CLUSTER" install
if "$CLUSTER" status >/dev/null 2>&1; then
  say "cluster runs already: it stays up afterwards"
  stop_cluster=0
fi
"$CLUSTER" start
eval "$("$CLUSTER" env)"
export SLURM_CONF

# Paths in a sweep file are relative to the working folder, as for `ssdtwin
# run`: run from the project root, as the local sweep does below.
cd "$ROOT"
say "submitting $SWEEP to slurm (out $SLURM_OUT)"
submit_log=$WORK/submit.log
set +e
"$SSDTWIN" sweep "$SWEEP" --out "$SLURM_OUT" --backend slurm 2>&1 | tee "$submit_log"
rc=${PIPESTATUS[0]}
set -e
((rc == 0)) || fail "ssdtwin sweep --backend slurm exited $rc"
JOB=$(sed -nE 's/^.*[Ss]ubmitted (batch )?job ([0-9]+).*$/\2/p' "$submit_log" | tail -n 1)
[ -n "$JOB" ] || fail "no 'submitted job ID' line in the sweep's output"

# No slurmdbd, so no sacct: squeue shows the array's tasks, finished ones
# too (-t all) for MinJobAge (600 s) after they end.
say "waiting for job $JOB (timeout ${TIMEOUT}s)"
T1=$(date +%s)
last=""
while :; do
  states=$(squeue -h -j "$JOB" -t all -o '%i %T' 2>/dev/null | sort -V || true)
  [ -n "$states" ] || break
  if ! grep -qvE ' (COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$' <<<"$states"; then
    break
  fi
  summary=$(awk '{print $2}' <<<"$states" | sort | uniq -c | awk '{printf "%s %s ", $1, $2}')
  if [ "$summary" != "$last" ]; then say "job $JOB: $summary"; last=$summary; fi
  if (($(date +%s) - T1 > TIMEOUT)); then
    scancel "$JOB" || true
    fail "job $JOB not finished after ${TIMEOUT}s: $summary"
  fi
  sleep 2
done
JOB_SECONDS=$(($(date +%s) - T1))
# Tasks whose output went to the default slurm-%A_%a.out in the submit folder.
for f in "$ROOT"/slurm-"$JOB"_*.out "$ROOT"/slurm-"$JOB".out; do
  [ -e "$f" ] && mv "$f" "$WORK/"
done
if [ -z "$states" ]; then
  say "job $JOB left the queue; its tasks' states in the job completion log:"
  grep -E "(JobId|ArrayJobId)=$JOB " "$(dirname "$SLURM_CONF")/log/jobcomp.txt" >&2 || true
  states=$(grep -E "ArrayJobId=$JOB " "$(dirname "$SLURM_CONF")/log/jobcomp.txt" |
           sed -nE 's/.*JobState=([A-Z_]+).*ArrayTaskId=([0-9]+).*/'"$JOB"'_\2 \1/p' | sort -V)
fi
ntasks=$(grep -c . <<<"$states" || true)
if grep -qv ' COMPLETED$' <<<"$states"; then
  say "tasks that did not complete:"
  grep -v ' COMPLETED$' <<<"$states" >&2
  grep -v ' COMPLETED$' <<<"$states" | sed -nE 's/^[0-9]+_([0-9]+) .*/\1/p' | while read -r task; do
    find "$WORK" -type f -name "*${JOB}_${task}.*" 2>/dev/null | while read -r f; do
      say "---- last lines of $f"; tail -n 20 "$f" >&2
    done
  done
  fail "job $JOB: not every array task completed"
fi
say "job $JOB: $ntasks tasks COMPLETED in ${JOB_SECONDS}s"

say "collecting $SLURM_OUT"
"$SSDTWIN" sweep --collect "$SLURM_OUT" || fail "ssdtwin sweep --collect exited $?"
[ -s "$SLURM_OUT/results.csv" ] || fail "--collect wrote no $SLURM_OUT/results.csv"

say "running the same sweep locally (out $LOCAL_OUT)"
"$SSDTWIN" sweep "$SWEEP" --out "$LOCAL_OUT" -j 2 || fail "local ssdtwin sweep exited $?"
[ -s "$LOCAL_OUT/results.csv" ] || fail "the local sweep wrote no $LOCAL_OUT/results.csv"

if ! cmp "$SLURM_OUT/results.csv" "$LOCAL_OUT/results.csv"; then
  diff "$SLURM_OUT/results.csv" "$LOCAL_OUT/results.csv" | head -n 20 >&2 || true
  fail "results.csv differ between the slurm and the local run"
fi
rows=$(($(wc -l <"$SLURM_OUT/results.csv") - 1))
passed=1
say "PASS: slurm job $JOB ($ntasks tasks, ${JOB_SECONDS}s) and the local run give identical results.csv ($rows rows); total $(($(date +%s) - T0))s"
