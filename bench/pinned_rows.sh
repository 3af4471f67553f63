#!/usr/bin/env bash
# Issue 34's pinned method: each MQSim row (bench/mqsim_rows.sh) paired and
# interleaved against a baseline tree's build on one CPU (the baseline first
# in each pair, after one warm-up pair). The speed-up is the baseline's wall
# time over this tree's, pair by pair; times it by the row's
# side-by-side ratio at that baseline (../shared/reference/mqsim-rows.md
# for fd1dbb5) to derive today's ratio. Also checks that every row's results
# match the baseline's (tools/same_results.py: wall times, float rounding and
# keys added since differ).
#   bench/pinned_rows.sh BASELINE_TREE [ROW ...]   default: every row but fast, steady
#   BASELINE_TREE: a checkout with a Release build in build/ (git worktree add
#   ../ssdtwin-fd1dbb5 fd1dbb5, then tools/build.sh build there)
#   PAIRS=5 (default), CPU=0, COLD=0: seconds of sleep before every run; 3
#   makes each run start as a user's does (bench/harness.py says why)
#   SSDTWIN=build/ssdtwin; TPCC_TRACE as for bench/mqsim_rows.sh (the baseline
#   reads the same trace file)
# /usr/bin/time counts in 10 ms steps: the set-up row (about 15 ms here) needs
# farm-bench's finer clock (docs/RESULTS.md gives the command).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/mqsim_common.sh
. bench/mqsim_common.sh
base=$(comparand_dir "${1:?usage: bench/pinned_rows.sh BASELINE_TREE [ROW ...]}" build/ssdtwin "build it there")
shift
bin=$(ssdtwin_bin)
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
out=$(pwd)/bench/out/pinned
mkdir -p "$out"
mqsim_tpcc_trace
mkdir -p "$base/bench/out/mqsim"
cp bench/out/mqsim/tpcc.trace "$base/bench/out/mqsim/tpcc.trace"
mqsim_row_table

# A line of bench/harness.py paired's output ($1: its name) as "median (min-max)".
med() { sed -n "s|^$1 *median \([^ ]*\) *min \([^ ]*\) *max \([^ ]*\)\$|\1 (\2-\3)|p" <<<"$res"; }
want=" $* "
echo "this tree $(git rev-parse --short HEAD 2>/dev/null || echo '?') against $(git -C "$base" rev-parse --short HEAD 2>/dev/null || echo "$base"), ${PAIRS:-5} pairs, cold ${COLD:-0} s"
echo
echo "| row | wall, baseline / this tree (medians) | speed-up: baseline / this tree, median (min-max) | results against the baseline's |"
echo "|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r name _ label args <<<"$r"
  if [ $# -eq 0 ]; then [ "$name" != fast ] && [ "$name" != steady ] || continue
  else [[ $want == *" $name "* ]] || continue; fi
  # The baseline runs from its own tree (its configs and workloads), with the
  # charts it draws by default; this tree as bench/mqsim_rows.sh runs it.
  res=$(python3 bench/harness.py paired -n "${PAIRS:-5}" -c "${CPU:-0}" --cold "${COLD:-0}" \
    "cd $base && build/ssdtwin run -q $args --out $out/$name.base" \
    "$bin run -q --charts script $args --out $out/$name.new")
  same=$(python3 tools/same_results.py "$out/$name.base" "$out/$name.new" | tail -1 || true)
  echo "| $label | $(med "A wall s" | cut -d' ' -f1) s / $(med "B wall s" | cut -d' ' -f1) s | $(med "A/B wall") | $same |"
done
