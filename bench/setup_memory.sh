#!/usr/bin/env bash
# Set-up cost and memory per shipped drive (issue 15): the time to build
# each drive before its first event (summary.json run.build_seconds, best
# of RUNS runs of 1,000 random 4 KiB writes at QD1) with that run's peak
# memory, and the peak memory after a whole-drive fill, in MiB per GiB of
# raw flash (the bound: 2). The per-entry rows put each DRAMless or
# SRAM-cached drive's map cache in 4 B segments, the worst case for the
# cache's own state. Prints a markdown table; outputs stay in
# bench/out/setup/.
#   bench/setup_memory.sh            RUNS=3 (build-time runs per config)
#   SSDTWIN=path/to/ssdtwin          (default build/ssdtwin, built if missing)
#   FILL=0                           skip the whole-drive fills
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SSDTWIN:-build/ssdtwin}
[ -x "$bin" ] || tools/build.sh build
runs=${RUNS:-3}
fill=${FILL:-1}
out=bench/out/setup
mkdir -p "$out"
cat >"$out/tiny.yaml" <<'YAML'
workload:
  name: 1000 random 4 KiB writes
  seed: 1
  phases:
    - {name: r, rw: randwrite, bs: 4KiB, iodepth: 1, number_ios: 1000}
YAML
C=configs/drives
PE_SRAM="--set drive.ftl.map_cache.location=sram --set drive.ftl.map_cache.segment=4B"
# label | drive | extra arguments
rows=(
  "WD Blue SN500 250 GB|$C/wd_sn500_250gb.yaml|"
  "Crucial M500 480 GB|$C/crucial_m500_480gb.yaml|"
  "WD Black 512 GB 2017|$C/wd_black_512gb_2017.yaml|"
  "WD Blue 3D 1 TB|$C/wd_blue_3d_1tb.yaml|"
  "WD Red SN700 4 TB|$C/wd_red_sn700_4tb.yaml|"
  "MQSim 512 GiB (bench), per-entry 2 MiB|bench/mqsim_512gib.yaml|"
  "SN500, per-entry 4 MiB|$C/wd_sn500_250gb.yaml|--set drive.ftl.map_cache.segment=4B"
  "WD Black, per-entry 2 MiB SRAM|$C/wd_black_512gb_2017.yaml|$PE_SRAM --set drive.ftl.map_cache.size=2MiB"
  "SN700 4 TB, per-entry 4 MiB SRAM|$C/wd_red_sn700_4tb.yaml|$PE_SRAM --set drive.ftl.map_cache.size=4MiB"
)
echo "SSDTwin binary $bin (this tree at $(git rev-parse --short HEAD 2>/dev/null || echo '?')), build time best of $runs"
echo
echo "| drive (raw flash) | build (best) | 1,000-IO run peak | whole-drive fill peak | MiB per GiB raw | fill wall |"
echo "|---|---|---|---|---|---|"
i=0
for r in "${rows[@]}"; do
  IFS='|' read -r label drive args <<<"$r"
  i=$((i + 1))
  best=""
  for k in $(seq 1 "$runs"); do
    # shellcheck disable=SC2086
    "$bin" run -q --drive "$drive" --workload "$out/tiny.yaml" $args --out "$out/tiny$i" >/dev/null
    b=$(python3 bench/harness.py field "$out/tiny$i/summary.json" run.build_seconds)
    best=$(python3 -c 'import sys; a=[float(x) for x in sys.argv[1:] if x]; print(min(a))' "$b" $best)
  done
  fillcols="- | - | -"
  if [ "$fill" = 1 ]; then
    # shellcheck disable=SC2086
    "$bin" run -q --drive "$drive" --workload configs/workloads/whole_drive_fill.yaml $args \
      --out "$out/fill$i" >/dev/null
    fillcols=$(python3 - "$out/fill$i/summary.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
raw = j["drive_model"]["raw_bytes"] / 2**30
peak = j["run"]["peak_rss_mib"]
print(f"{peak:,.1f} MiB | {peak / raw:.3f} | {j['run']['wall_seconds']:.1f} s")
PY
)
  fi
  python3 - "$out/tiny$i/summary.json" "$label" "$best" "$fillcols" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
raw = j["drive_model"]["raw_bytes"] / 2**30
print(f"| {sys.argv[2]} ({raw:,.1f} GiB) | {float(sys.argv[3]):.4f} s | {j['run']['peak_rss_mib']:,.1f} MiB | {sys.argv[4]} |")
PY
done
