#!/usr/bin/env bash
# Simulator speed and memory on whole reference drives (not part of the tests).
#   bench/run_bench.sh [DRIVE.yaml ...]     default: the SN500 250 GB
# For each drive: a whole-drive 128 KiB fill, then 60 simulated seconds of
# 4 KiB QD32 random writes after the fill, then the same with GC running,
# then fast steady-state preconditioning (2 fills + 2 random overwrites).
# Prints wall time, host IOs per wall second and peak memory per GiB of raw
# flash; the raw outputs stay in bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/ssdtwin ] || tools/build.sh build
drives=("$@")
[ ${#drives[@]} -gt 0 ] || drives=(configs/drives/wd_sn500_250gb.yaml)
for d in "${drives[@]}"; do
  name=$(basename "$d" .yaml)
  for w in whole_drive_fill fill_then_randwrite bench_randwrite_gc bench_fast_precondition; do
    out=bench/out/$name/$w
    build/ssdtwin run -q --drive "$d" --workload configs/workloads/$w.yaml --out "$out"
    python3 - "$out/summary.json" "$name" "$w" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
raw_gib = j["drive_model"]["raw_bytes"] / 2**30
last = j["phases"][-1]
fast = [p for p in j["phases"] if p.get("fast")]
if fast:
    # Fast phases take no simulated time: report their wall time and pages placed.
    pages = sum(p["write"]["bytes"] for p in fast) / 4096
    secs = sum(p["wall_seconds"] for p in fast)
    print(f"{sys.argv[2]:24s} {sys.argv[3]:22s} {len(fast)} fast phases: {secs:7.2f} s wall, "
          f"{pages / secs / 1e6:.1f} M host pages/wall s, WA "
          + "/".join(f"{p['write_amplification']:.2f}" for p in fast))
print(f"{sys.argv[2]:24s} {sys.argv[3]:22s} run wall {j['run']['wall_seconds']:7.2f} s | "
      f"phase '{last['name']}': {last['wall_seconds']:6.2f} s wall, "
      f"{last['host_ios_per_wall_second']:10.0f} host IOs/wall s, WA {last['write_amplification'] or 0:.2f} | "
      f"peak {j['run']['peak_rss_mib']:.0f} MiB = {j['run']['peak_rss_mib'] / raw_gib:.2f} MiB/GiB raw")
PY
  done
done
