#!/usr/bin/env bash
# Wall time of the 12-point sweep (bench/sweep_op_gc.yaml) with 2 workers
# against 1, runs interleaved by bench/paired.sh (issue 14: 2 workers must take at
# most 60% of the 1-worker time). Each run starts from an empty folder, as
# the sweep would otherwise skip its finished points.
#   bench/sweep_bench.sh [RUNS]      default 5 pairs
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/ssdtwin ] || tools/build.sh build
runs=${1:-5}
out=$(mktemp -d /tmp/ssdtwin-sweep-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
one() { echo "rm -rf $out/j$1 && build/ssdtwin sweep bench/sweep_op_gc.yaml --out $out/j$1 -q -j $1"; }
# A = 2 workers, B = 1 worker: the ratio A/B is the share of the 1-worker time.
bench/paired.sh -n "$runs" "$(one 2)" "$(one 1)"
