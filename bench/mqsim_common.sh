# Sourced by bench/mqsim_rows.sh, instr_counts.sh, mqsim_side_by_side.sh and
# pinned_rows.sh (from the repository root): the MQSim drive, its 16 GiB
# version, the tpcc trace and (for the last two) the rows' table, so that all
# of them run the same rows, and the comparand and binary checks the last two
# share.
# shellcheck shell=bash disable=SC2034  # D, W and G16 are for the sourcing scripts

D=bench/mqsim_512gib.yaml
W=bench/workloads
# The 16 GiB version: 64 blocks per plane (2048 / 32). At 7% over-provisioning
# a die keeps 4.48 spare blocks, fewer than SSDTwin's GC needs (trigger + 2,
# the trigger at least 3), so the user capacity leaves 5 per die (7.8%), the
# trigger is 3 (5% of 64 = 3.2) and the reserve 2 (both SSDTwin's minimum).
G16="--set drive.nand.blocks_per_plane=64 --set drive.user_capacity=15837691904B"
G16+=" --set drive.ftl.gc.trigger_free_blocks=3 --set drive.ftl.gc.reserved_blocks=2"

# Writes the tpcc row's trace where its workload reads it
# (bench/out/mqsim/tpcc.trace): MQSim's own if TPCC_TRACE names it, else a
# stand-in of the same shape (bench/tpcc_standin.py: 7,000 IOs over 136 ms,
# mostly 8 KiB, about 60% reads, over 180 GiB).
mqsim_tpcc_trace() {
  mkdir -p bench/out/mqsim
  if [ -n "${TPCC_TRACE:-}" ]; then
    cp "$TPCC_TRACE" bench/out/mqsim/tpcc.trace
    return
  fi
  python3 bench/tpcc_standin.py bench/out/mqsim/tpcc.trace
}

# A script's comparand: folder $1 made absolute, holding the executable $2
# (else a message saying how to get it, $3, and exit 2).
comparand_dir() {
  local dir
  dir=$(cd "$1" && pwd) || exit 2
  [ -x "$dir/$2" ] || { echo "no $2 in $dir ($3)" >&2; exit 2; }
  echo "$dir"
}

# The `rows` array of bench/mqsim_rows.sh (name|MQSim seconds|label|ssdtwin
# run arguments), for the scripts that run the same rows another way.
mqsim_row_table() {
  eval "$(sed -n '/^rows=(/,/^)/p' bench/mqsim_rows.sh)"
}

# This tree's binary: SSDTWIN, default build/ssdtwin (built if missing).
ssdtwin_bin() {
  local bin=${SSDTWIN:-build/ssdtwin}
  [ -x "$bin" ] || tools/build.sh build >&2
  echo "$bin"
}
