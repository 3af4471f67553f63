#!/usr/bin/env bash
# Checks the steady-state mode (fast: steady, ftl/state/steady_layout.h) against
# the exact fast path on whole drives: bench/workloads/steady_check.yaml
# (a fast sequential fill, two full random overwrites, then two minutes of
# timed 4 KiB QD32 random writes) with the overwrites exact, then steady.
# Prints, per drive and GC policy, the write amplification of each pass,
# the full blocks' valid shares after the second (p10/p50/p90), the IOPS of
# the timed phase, and the wall time of the two passes.
#   bench/steady_check.sh                   the shipped drives below
#   CASES="name|drive.yaml|--set ..." ...   your own (one per line)
#   SSDTWIN=path/to/ssdtwin (default build/ssdtwin, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SSDTWIN:-build/ssdtwin}
[ -x "$bin" ] || tools/build.sh build
out=bench/out/steady_check
mkdir -p "$out"
W=bench/workloads/steady_check.yaml
default_cases="sn500 greedy|configs/drives/wd_sn500_250gb.yaml|
sn500 cost_benefit|configs/drives/wd_sn500_250gb.yaml|--set drive.ftl.gc.policy=cost_benefit
sn500 fifo|configs/drives/wd_sn500_250gb.yaml|--set drive.ftl.gc.policy=fifo
sn500 random|configs/drives/wd_sn500_250gb.yaml|--set drive.ftl.gc.policy=random
m500 (RAIN 1:15)|configs/drives/crucial_m500_480gb.yaml|
wd black 512 GB|configs/drives/wd_black_512gb_2017.yaml|
mqsim 16 GiB|bench/mqsim_512gib.yaml|--set drive.nand.blocks_per_plane=64 --set drive.user_capacity=15837691904B --set drive.ftl.gc.trigger_free_blocks=3 --set drive.ftl.gc.reserved_blocks=2"
cases=${CASES:-$default_cases}

echo "| drive, GC policy | mode | WA pass 1 | WA pass 2 | valid share p10 / p50 / p90 after pass 2 | timed IOPS (2 min) | passes' wall time |"
echo "|---|---|---|---|---|---|---|"
while IFS='|' read -r name drive args; do
  [ -n "$name" ] || continue
  tag=$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_')
  for mode in true steady; do
    # shellcheck disable=SC2086
    "$bin" run -q --drive "$drive" --workload "$W" $args \
      --set workload.phases.1.fast=$mode --set workload.phases.2.fast=$mode --out "$out/${tag}_$mode" >/dev/null
    python3 - "$out/${tag}_$mode/metrics.csv" "$name" "$mode" <<'PY'
import csv, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if not l.startswith('#')))
m = {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}
f = lambda p, k: float(m[p][k])
mode = "exact" if sys.argv[3] == "true" else "steady"
print(f"| {sys.argv[2]} | {mode} | {f('rand1','write_amplification'):.4f} | {f('rand2','write_amplification'):.4f} | "
      f"{f('rand2','blocks.valid_share_p10'):.4f} / {f('rand2','blocks.valid_share_p50'):.4f} / {f('rand2','blocks.valid_share_p90'):.4f} | "
      f"{f('randwrite','write.iops'):,.0f} | {f('rand1','wall_seconds') + f('rand2','wall_seconds'):.2f} s |")
PY
  done
done <<<"$cases"
