#!/usr/bin/env bash
# README command 1: installs the dependencies, builds SSDTwin and runs the
# main job: a whole-drive fill of the WD Blue SN500 250 GB, with results and
# charts written to results/sn500_whole_drive_fill/.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh build ssdtwin  # the main job needs the simulator alone
out=results/sn500_whole_drive_fill
build/ssdtwin run --drive configs/drives/wd_sn500_250gb.yaml \
  --workload configs/workloads/whole_drive_fill.yaml --out "$out"
echo "results: $out/fill.png (chart), $out/fill.csv, $out/summary.json (fill: SLC cache GB, last-16 GB and overall MB/s)"
