# Sourced by bench/mqsim_rows.sh and bench/instr_counts.sh (from the
# repository root): the MQSim drive, its 16 GiB version and the tpcc trace,
# so that both scripts run the same rows.
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
