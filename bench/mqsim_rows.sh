#!/usr/bin/env bash
# The benchmark rows of issue 15 on SSDTwin: MQSim's shipped 512 GiB MLC
# geometry (bench/mqsim_512gib.yaml) under the workloads in bench/workloads/,
# each row run RUNS times from the outside (/usr/bin/time: wall seconds of
# the whole process, its set-up included, and its peak RSS), medians quoted.
# MQSim's column is the figure measured in issue 15 on the same kind of
# machine (MQSim is not run here). Prints a markdown table; the outputs of
# every run stay in bench/out/mqsim/<row>/.
#   bench/mqsim_rows.sh [ROW ...]     default: every row
#   RUNS=5 (default 3; the two preconditioning rows run FAST_RUNS=1 time)
#   SSDTWIN=path/to/ssdtwin (default build/ssdtwin, built if missing)
#   TPCC_TRACE=path/to/MQSim/traces/tpcc-small.trace (default: a stand-in,
#   see bench/workloads/mqsim_tpcc_x50.yaml)
#   CHARTS=script (default) | png | none: `ssdtwin run --charts`. MQSim draws
#   no charts; the scripts alone cost about 1 ms, gnuplot's PNGs 50-100 ms
#   a run (most of the set-up row before this default).
# Rows: b1_seg4b b1_seg4k b1_whole gc_8k gc_4k b4 tpcc setup fast steady
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SSDTWIN:-build/ssdtwin}
[ -x "$bin" ] || tools/build.sh build
runs=${RUNS:-3}
charts=${CHARTS:-script}
fast_runs=${FAST_RUNS:-1}
out=bench/out/mqsim
mkdir -p "$out"

# shellcheck source=bench/mqsim_common.sh
. bench/mqsim_common.sh
mqsim_tpcc_trace

# name | MQSim seconds (issue 15; - none) | label | arguments of `ssdtwin run`
rows=(
  "b1_seg4b|51.5|B1: 1 M 4 KiB random writes, QD32, 2 MiB map cache (segment: 4B)|--drive $D --workload $W/mqsim_b1_randwrite.yaml"
  "b1_seg4k|51.5|B1, map cache in 4 KiB segments|--drive $D --workload $W/mqsim_b1_randwrite.yaml --set drive.ftl.map_cache.segment=4KiB"
  "b1_whole|19.9|B1, whole table cached|--drive $D --workload $W/mqsim_b1_randwrite.yaml --set drive.ftl.map_cache.size=0"
  "gc_8k|93.7|16 GiB drive, random writes into GC, 3 M x 8 KiB|--drive $D --workload $W/mqsim_gc_randwrite.yaml $G16"
  "gc_4k|93.7|16 GiB drive, random writes into GC, 6 M x 4 KiB|--drive $D --workload $W/mqsim_gc_randwrite.yaml $G16 --set workload.phases.0.bs=4KiB --set workload.phases.0.number_ios=6000000"
  "b4|182.5|B4: 128 KiB sequential fill of 476 GiB|--drive $D --workload $W/mqsim_b4_seqfill.yaml"
  "tpcc|10.0|tpcc-small trace x50, fresh drive|--drive $D --workload $W/mqsim_tpcc_x50.yaml"
  "setup|6.5|set-up alone (1,000 IOs on the 512 GiB drive)|--drive $D --workload $W/mqsim_setup.yaml"
  "fast|-|fill once, then overwrite randomly twice (fast preconditioning, 8-block GC trigger)|--drive $D --workload $W/mqsim_fast_precondition.yaml --set drive.ftl.gc.trigger_free_blocks=8 --set drive.ftl.gc.reserved_blocks=3"
  "steady|-|the same, the overwrites in steady-state mode (fast: steady)|--drive $D --workload $W/mqsim_steady_precondition.yaml --set drive.ftl.gc.trigger_free_blocks=8 --set drive.ftl.gc.reserved_blocks=3"
)

want=" $* "
echo "SSDTwin binary $bin (this tree at $(git rev-parse --short HEAD 2>/dev/null || echo '?')), $runs runs per row (fast: $fast_runs), $(nproc) cores"
echo
echo "| row | MQSim | SSDTwin wall (median, min-max) | ratio | set-up (build_seconds) | host IOs per wall s (whole run; simulation alone) | peak memory | command |"
echo "|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r name mq label args <<<"$r"
  [ $# -eq 0 ] || [[ $want == *" $name "* ]] || continue
  n=$runs
  [ "$name" != fast ] && [ "$name" != steady ] || n=$fast_runs
  [ "$mq" != - ] || mq=0
  # shellcheck disable=SC2086
  python3 bench/harness.py time -n "$n" --summary "$out/$name" --label "$label" --ref "$mq" -- \
    "$bin" run -q --charts "$charts" $args --out "$out/$name"
done
