#!/usr/bin/env bash
# The regression suite (issue 14): small, fast runs of scaled-down review
# procedures on each reference drive and of every GC, SLC cache and
# map-cache policy, checked against tests/regression/baseline.csv by
# `ssdtwin compare`. A change that moves a curve fails with the metric named.
#
#   tests/regression/run.sh SSDTWIN OUT_DIR            run and compare (exit 1: a metric moved)
#   tests/regression/run.sh SSDTWIN OUT_DIR --update   run and take the results as the baseline
#   tests/regression/run.sh SSDTWIN OUT_DIR --swap-policies
#       run each policy case with every other policy of its kind; exit 1
#       unless `ssdtwin compare` fails each, naming a metric (the baseline's
#       rows must tell the policies apart)
#
# SSDTWIN_REGRESSION_JOBS (default 2): runs at once. Every run is
# deterministic (same config and seed, same metrics), so the tolerances in
# the baseline guard intentional model changes, not noise.
set -euo pipefail

if [[ $# -lt 2 || ( ${3:-} == --swap-policies && $# -gt 3 ) ]]; then
  echo "usage: $0 SSDTWIN OUT_DIR [--update | --swap-policies]" >&2
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
# QLC blocks of 16 wordlines x 4 strings x 4 bits; 10 GB of user data on
# 12.5 GiB, so that the dynamic SLC region (up to 1 GB) has to be folded
# as the drive fills, as on the whole drive past 648 GB.
p1=(--set drive.nand.dies_per_channel=1 --set drive.user_capacity=10GB
    --set drive.nand.pages_per_block=256 --set drive.nand.blocks_per_plane=200
    --set drive.ftl.slc_cache.static=512MB --set drive.ftl.slc_cache.dynamic.max=1GB)
# A map cache far smaller than the table, so eviction decides hits.
small_map=(--set drive.ftl.map_cache.location=sram --set drive.ftl.map_cache.size=64KiB)

cases=()  # every case, for the comparison
names=()  # the runs in flight, oldest first, with their pids and folders
pids=()
dirs=()
failed=0

# case_ DIR NAME DRIVE WORKLOAD [ARGS...]: one run into DIR/NAME, in the background.
case_() {
  local dir=$1 name=$2 drive=$3 workload=$4
  shift 4
  while [[ ${#pids[@]} -ge $jobs ]]; do reap_one; done
  mkdir -p "$dir"
  rm -rf "${dir:?}/$name"
  "$ssdtwin" run -q --drive "$drive" --workload "$workload" --out "$dir/$name" "$@" \
    >"$dir/$name.log" 2>&1 &
  cases+=("$dir/$name")
  names+=("$name")
  dirs+=("$dir")
  pids+=($!)
}

# Waits for the oldest run; a run that fails is reported with its output.
reap_one() {
  local name=${names[0]} dir=${dirs[0]} pid=${pids[0]}
  names=("${names[@]:1}")
  dirs=("${dirs[@]:1}")
  pids=("${pids[@]:1}")
  if ! wait "$pid"; then
    echo "regression case $dir/$name: ssdtwin run failed:" >&2
    cat "$dir/$name.log" >&2
    failed=1
  fi
}

# The policy cases: one per policy registered in the binary (`ssdtwin
# policies`), so a new policy gets its case, which fails until baseline.csv
# has rows for it. Each kind's workload exercises what its policies decide
# differently (see the workloads' comments), and its rows hold metrics that
# tell every policy of the kind from every other (--swap-policies checks it).
kinds=(gc slc map)
declare -A key=([gc]=ftl.gc.policy [slc]=ftl.slc_cache.policy [map]=ftl.map_cache.policy)
listing=$("$ssdtwin" policies)
declare -A registered
for kind in "${kinds[@]}"; do
  registered[$kind]=$(awk -v k="${key[$kind]}" '$1 == k { print $2 }' <<<"$listing")
  if [[ -z ${registered[$kind]} ]]; then
    echo "$0: '$ssdtwin policies' lists no ${key[$kind]}" >&2
    exit 2
  fi
done

# policy_case KIND POLICY NAME DIR: case NAME of KIND run with POLICY, into DIR.
policy_case() {
  local kind=$1 policy=$2 name=$3 dir=$4
  local choose=(--set "drive.${key[$kind]}=$policy")
  case $kind in
    # Steady-state uniform random writes, then hot/cold skewed ones.
    gc) case_ "$dir" "$name" "$drives/test_tlc_1gb.yaml" "$wl/gc_steady.yaml" "${choose[@]}" ;;
    # Bursts with idle gaps and rewrites.
    slc) case_ "$dir" "$name" "$drives/test_tlc_slc.yaml" "$wl/slc_bursts.yaml" "${choose[@]}" ;;
    # Uniform and skewed lookups in a small map cache.
    map) case_ "$dir" "$name" "$drives/test_tlc_1gb.yaml" "$wl/map_cache.yaml" "${small_map[@]}" "${choose[@]}" ;;
  esac
}

# --swap-policies: every policy case run with each other policy of its kind
# (into OUT_DIR/CASE.with_POLICY/CASE, so compare takes it for CASE) must
# fail `ssdtwin compare` on a metric that moved; a swap that passes means
# the case's rows cannot tell the two policies apart.
swap_policies() {
  local kind c p
  local -a swaps=()
  for kind in "${kinds[@]}"; do
    for c in ${registered[$kind]}; do
      for p in ${registered[$kind]}; do
        [[ $p == "$c" ]] && continue
        policy_case "$kind" "$p" "${kind}_$c" "$out/${kind}_$c.with_$p"
        swaps+=("${kind}_$c $p")
      done
    done
  done
  while [[ ${#pids[@]} -gt 0 ]]; do reap_one; done
  echo "policy swaps: ${#swaps[@]} runs took $(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 )) ms ($jobs at once)"
  [[ $failed -eq 0 ]] || exit 1
  local swap name report rc caught
  for swap in "${swaps[@]}"; do
    read -r name p <<<"$swap"
    rc=0
    report=$("$ssdtwin" compare --baseline "$here/baseline.csv" --partial "$out/$name.with_$p/$name" 2>&1) || rc=$?
    # The table's rows that moved the wrong way: run, phase, metric, ...
    caught=$(awk '/FAIL: (rose|dropped)$/ { printf "%s%s %s", sep, $2, $3; sep = ", " }' <<<"$report")
    if [[ $rc -eq 1 && -n $caught ]]; then
      echo "$name run with $p: caught by $caught"
    else
      echo "$name run with $p: NOT caught (compare exit $rc):" >&2
      echo "$report" >&2
      failed=1
    fi
  done
  exit $failed
}

mkdir -p "$out"
start=$EPOCHREALTIME
if [[ ${1:-} == --swap-policies ]]; then swap_policies; fi

# Reference drives, their review procedures scaled down.
case_ "$out" sn500_fill            "$drives/wd_sn500_250gb.yaml"      "$wl/fill_curve.yaml"      "${sn500[@]}"
case_ "$out" sn500_working_set     "$drives/wd_sn500_250gb.yaml"      "$wl/working_set.yaml"     "${sn500[@]}" \
      --set drive.ftl.map_cache.size=1MiB
case_ "$out" blue3d_fill           "$drives/wd_blue_3d_1tb.yaml"      "$wl/fill_curve.yaml"      "${blue3d[@]}"
case_ "$out" blue3d_degrade        "$drives/wd_blue_3d_1tb.yaml"      "$wl/degrade_recover.yaml" "${blue3d[@]}"
case_ "$out" m500_size_sweep       "$drives/crucial_m500_480gb.yaml"  "$wl/size_sweep.yaml"      "${m500[@]}"
case_ "$out" m500_latency          "$drives/crucial_m500_480gb.yaml"  "$wl/latency_fill100.yaml" "${m500[@]}"
case_ "$out" black_consistency     "$drives/wd_black_512gb_2017.yaml" "$wl/consistency.yaml"     "${black[@]}"
case_ "$out" sn700_qd_sweep        "$drives/wd_red_sn700_4tb.yaml"    "$wl/qd_sweep.yaml"        "${sn700[@]}"
case_ "$out" sn700_load_curve      "$drives/wd_red_sn700_4tb.yaml"    "$wl/load_curve.yaml"      "${sn700[@]}"
case_ "$out" p1_fill               "$drives/crucial_p1_1tb.yaml"      "$wl/fill_curve.yaml"      "${p1[@]}"

for kind in "${kinds[@]}"; do
  for p in ${registered[$kind]}; do policy_case "$kind" "$p" "${kind}_$p" "$out"; done
done

while [[ ${#pids[@]} -gt 0 ]]; do reap_one; done
echo "regression suite: ${#cases[@]} runs took $(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 )) ms ($jobs at once)"
[[ $failed -eq 0 ]] || exit 1
exec "$ssdtwin" compare --baseline "$here/baseline.csv" "$@" "${cases[@]}"
