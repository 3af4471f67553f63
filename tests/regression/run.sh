#!/usr/bin/env bash
# The regression suite (issue 14): small, fast runs of scaled-down review
# procedures on each reference drive and of every GC, SLC cache and
# map-cache policy, checked against tests/regression/baseline.csv by
# `ssdtwin compare`. A change that moves a curve fails with the metric named.
#
#   tests/regression/run.sh SSDTWIN OUT_DIR            run and compare (exit 1: a metric moved)
#   tests/regression/run.sh SSDTWIN OUT_DIR --update   run and take the results as the baseline
#
# SSDTWIN_REGRESSION_JOBS (default 2): runs at once. Every run is
# deterministic (same config and seed, same metrics), so the tolerances in
# the baseline guard intentional model changes, not noise.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 SSDTWIN OUT_DIR [--update]" >&2
  exit 2
fi
ssdtwin=$1
out=$2
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
wl=$here/workloads
drives=$root/configs/drives
jobs=${SSDTWIN_REGRESSION_JOBS:-2}

# The reference drives scaled to about 9.4 GiB of flash: one die per channel,
# shorter blocks, fewer of them, user capacity and SLC cache scaled to match.
# The FTL, timing and policies stay the drive's own, so a change to them moves
# these runs as it would the whole drive.
small=(--set drive.nand.dies_per_channel=1 --set drive.user_capacity=8GB)
sn500=("${small[@]}" --set drive.nand.pages_per_block=192 --set drive.nand.blocks_per_plane=400
       --set drive.ftl.slc_cache.static=512MB)
blue3d=("${sn500[@]}")
m500=("${small[@]}" --set drive.nand.pages_per_block=128 --set drive.nand.blocks_per_plane=300)
black=(--set drive.nand.dies_per_channel=1 --set drive.user_capacity=9.5GB
       --set drive.nand.pages_per_block=96 --set drive.nand.blocks_per_plane=400)
sn700=("${small[@]}" --set drive.nand.pages_per_block=192 --set drive.nand.blocks_per_plane=200
       --set drive.ftl.slc_cache.static=512MB)
# A map cache far smaller than the table, so eviction decides hits.
small_map=(--set drive.ftl.map_cache.location=sram --set drive.ftl.map_cache.size=64KiB)

cases=()  # every case, for the comparison
names=()  # the runs in flight, oldest first, with their pids
pids=()
failed=0

# case NAME DRIVE WORKLOAD [ARGS...]: one run into $out/NAME, in the background.
case_() {
  local name=$1 drive=$2 workload=$3
  shift 3
  while [[ ${#pids[@]} -ge $jobs ]]; do reap_one; done
  rm -rf "${out:?}/$name"
  "$ssdtwin" run -q --drive "$drive" --workload "$workload" --out "$out/$name" "$@" \
    >"$out/$name.log" 2>&1 &
  cases+=("$out/$name")
  names+=("$name")
  pids+=($!)
}

# Waits for the oldest run; a run that fails is reported with its output.
reap_one() {
  local name=${names[0]} pid=${pids[0]}
  names=("${names[@]:1}")
  pids=("${pids[@]:1}")
  if ! wait "$pid"; then
    echo "regression case $name: ssdtwin run failed:" >&2
    cat "$out/$name.log" >&2
    failed=1
  fi
}

mkdir -p "$out"
start=$EPOCHREALTIME

# Reference drives, their review procedures scaled down.
case_ sn500_fill            "$drives/wd_sn500_250gb.yaml"      "$wl/fill_curve.yaml"      "${sn500[@]}"
case_ sn500_working_set     "$drives/wd_sn500_250gb.yaml"      "$wl/working_set.yaml"     "${sn500[@]}" \
      --set drive.ftl.map_cache.size=1MiB
case_ blue3d_fill           "$drives/wd_blue_3d_1tb.yaml"      "$wl/fill_curve.yaml"      "${blue3d[@]}"
case_ blue3d_degrade        "$drives/wd_blue_3d_1tb.yaml"      "$wl/degrade_recover.yaml" "${blue3d[@]}"
case_ m500_size_sweep       "$drives/crucial_m500_480gb.yaml"  "$wl/size_sweep.yaml"      "${m500[@]}"
case_ m500_latency          "$drives/crucial_m500_480gb.yaml"  "$wl/latency_fill100.yaml" "${m500[@]}"
case_ black_consistency     "$drives/wd_black_512gb_2017.yaml" "$wl/consistency.yaml"     "${black[@]}"
case_ sn700_qd_sweep        "$drives/wd_red_sn700_4tb.yaml"    "$wl/qd_sweep.yaml"        "${sn700[@]}"
case_ sn700_load_curve      "$drives/wd_red_sn700_4tb.yaml"    "$wl/load_curve.yaml"      "${sn700[@]}"

# Every GC victim policy in steady-state random writes.
for p in greedy cost_benefit fifo random; do
  case_ "gc_$p" "$drives/test_tlc_1gb.yaml" "$wl/gc_steady.yaml" --set "drive.ftl.gc.policy=$p"
done
# Every SLC cache policy under bursts with idle gaps.
for p in reclaim idle_fold greedy_fold; do
  case_ "slc_$p" "$drives/test_tlc_slc.yaml" "$wl/slc_bursts.yaml" --set "drive.ftl.slc_cache.policy=$p"
done
# Every map-cache eviction policy.
for p in lru fifo; do
  case_ "map_$p" "$drives/test_tlc_1gb.yaml" "$wl/map_cache.yaml" "${small_map[@]}" \
        --set "drive.ftl.map_cache.policy=$p"
done

while [[ ${#pids[@]} -gt 0 ]]; do reap_one; done
echo "regression suite: ${#cases[@]} runs took $(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 )) ms ($jobs at once)"
[[ $failed -eq 0 ]] || exit 1
exec "$ssdtwin" compare --baseline "$here/baseline.csv" "$@" "${cases[@]}"
