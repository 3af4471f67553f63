#!/usr/bin/env bash
# Instructions executed per benchmark row, counted by valgrind (cachegrind,
# no cache simulation): a figure that does not move with the machine's load,
# unlike wall time on this shared 2-core machine (paired wall ratios of one
# binary against itself range 0.8-1.2 there). A change that cuts work shows
# here whatever the noise; whether it also cuts time (memory stalls are not
# counted) needs paired timings (bench/paired.sh). The rows are the MQSim rows of
# bench/mqsim_rows.sh, shortened so that each runs in under a minute under
# valgrind (about 30-50x slower than native): the GC row starts from a
# drive filled state-only (bench/workloads/instr_gc_randwrite.yaml).
#   bench/instr_counts.sh [ROW ...]               default: every row
#   SSDTWIN=path/to/ssdtwin (default build/ssdtwin, built if missing)
#   VS=path/to/other/ssdtwin  also count it, and print the ratio new/old
#   TPCC_TRACE=path/to/MQSim/traces/tpcc-small.trace  (as for bench/mqsim_rows.sh)
# Rows: b4_8g gc4k_1m b1_250k tpcc
# Needs valgrind (Debian package valgrind; not installed by tools/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SSDTWIN:-build/ssdtwin}
[ -x "$bin" ] || tools/build.sh build
command -v valgrind >/dev/null || { echo "instr_counts: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
out=bench/out/instr
mkdir -p "$out"

# shellcheck source=bench/mqsim_common.sh
. bench/mqsim_common.sh
mqsim_tpcc_trace  # TPCC_TRACE=MQSim's own, as for bench/mqsim_rows.sh

# name | label | arguments of `ssdtwin run`
rows=(
  "b4_8g|B4, the first 8 GiB of the sequential fill|--drive $D --workload $W/mqsim_b4_seqfill.yaml --set workload.phases.0.io_size=8GiB"
  "gc4k_1m|16 GiB drive filled state-only, then 1 M x 4 KiB random writes in GC|--drive $D --workload $W/instr_gc_randwrite.yaml $G16"
  "b1_250k|B1 (segment: 4B), 250 k of its 1 M random writes|--drive $D --workload $W/mqsim_b1_randwrite.yaml --set workload.phases.0.number_ios=250000"
  "tpcc|tpcc-small stand-in x50, whole|--drive $D --workload $W/mqsim_tpcc_x50.yaml"
)

# Instructions of one run of binary $1 on arguments $2 (written to $3).
count() {
  # shellcheck disable=SC2086
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$1" run -q $2 --out "$3" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
}

fmt() { python3 -c "print(f'{$1:,}')"; }

want=" $* "
echo "SSDTwin binary $bin (this tree at $(git rev-parse --short HEAD 2>/dev/null || echo '?'))${VS:+, against $VS}"
echo
if [ -n "${VS:-}" ]; then
  echo "| row | host IOs | instructions | per host IO | other binary | ratio new/old | command |"
  echo "|---|---|---|---|---|---|---|"
else
  echo "| row | host IOs | instructions | per host IO | command |"
  echo "|---|---|---|---|---|"
fi
for r in "${rows[@]}"; do
  IFS='|' read -r name label args <<<"$r"
  [ $# -eq 0 ] || [[ $want == *" $name "* ]] || continue
  n=$(count "$bin" "$args" "$out/$name")
  ios=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["host_ios"])' "$out/$name/summary.json")
  line="| $label | $ios | $(fmt "$n") | $(fmt $((n / ios)))"
  if [ -n "${VS:-}" ]; then
    o=$(count "$VS" "$args" "$out/$name.vs")
    line+=" | $(fmt "$o") | $(python3 -c "print(f'{$n / $o:.3f}')")"
  fi
  echo "$line | \`$bin run -q $args --out $out/$name\` |"
done
