#!/usr/bin/env bash
# The MQSim rows side by side (issue 34): each row on MQSim and on SSDTwin,
# interleaved (MQSim, SSDTwin, MQSim, ...), one process at a time on this
# machine, wall and CPU seconds and peak memory from /usr/bin/time. Prints
# per row the medians and the median (min-max) of the pairs' wall ratios,
# MQSim over SSDTwin. Seconds from different machines never divide: the
# ratio is the figure.
#
# MQSim is not part of this repository: build it yourself, outside it, from
# CMU-SAFARI/MQSim (commit 7ec40e3 for RESULTS' figures) with its own
# Makefile, and name its folder (the one holding the MQSim binary,
# ssdconfig.xml and traces/).
#   bench/mqsim_side_by_side.sh MQSIM_DIR [ROW ...]
#   rows: setup tpcc b1_whole b1_seg4b gc_8k gc_4k b4 (default: all but b4,
#   whose MQSim run is about 5 minutes here)
#   PAIRS=5 (default), SSDTWIN=build/ssdtwin
# MQSim's configs are written into bench/out/mqsim_sbs/ from its own
# ssdconfig.xml, as ../shared/reference/mqsim-rows.md describes: the shipped
# drive; Ideal_Mapping_Table for the whole-map row; 256 blocks x 64 pages per
# plane for the 16 GiB GC rows. Workloads: one QUEUE_DEPTH flow over every
# channel, chip, die and plane, WRITE_CACHE, empty drive, 100% working set,
# aligned FIXED sizes, seed 12344, no stop time; tpcc replays MQSim's own
# traces/tpcc-small.trace 50 times (SSDTwin's row reads the same file).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/mqsim_common.sh
. bench/mqsim_common.sh
mq=$(comparand_dir "${1:?usage: bench/mqsim_side_by_side.sh MQSIM_DIR [ROW ...]}" MQSim "build it there with make")
shift
bin=$(ssdtwin_bin)
pairs=${PAIRS:-5}
out=bench/out/mqsim_sbs
mkdir -p "$out"

TPCC_TRACE=$mq/traces/tpcc-small.trace mqsim_tpcc_trace
mqsim_row_table

cfg=$(cat "$mq/ssdconfig.xml")
echo "$cfg" >"$out/ssd_default.xml"
echo "${cfg/<Ideal_Mapping_Table>false</<Ideal_Mapping_Table>true<}" >"$out/ssd_ideal.xml"
c16=${cfg/<Block_No_Per_Plane>2048</<Block_No_Per_Plane>256<}
echo "${c16/<Page_No_Per_Block>256</<Page_No_Per_Block>64<}" >"$out/ssd_16g.xml"
flow_head='<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario>'
ids='<Priority_Class>HIGH</Priority_Class><Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs><Chip_IDs>0,1,2,3</Chip_IDs><Die_IDs>0,1</Die_IDs><Plane_IDs>0,1</Plane_IDs>
<Initial_Occupancy_Percentage>0</Initial_Occupancy_Percentage>'
synthetic() {  # distribution, sectors per request, requests
  cat <<EOF
$flow_head<IO_Flow_Parameter_Set_Synthetic>$ids
<Working_Set_Percentage>100</Working_Set_Percentage><Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>
<Read_Percentage>0</Read_Percentage><Address_Distribution>$1</Address_Distribution>
<Percentage_of_Hot_Region>0</Percentage_of_Hot_Region><Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>
<Address_Alignment_Unit>$2</Address_Alignment_Unit><Request_Size_Distribution>FIXED</Request_Size_Distribution>
<Average_Request_Size>$2</Average_Request_Size><Variance_Request_Size>0</Variance_Request_Size><Seed>12344</Seed>
<Average_No_of_Reqs_in_Queue>32</Average_No_of_Reqs_in_Queue><Intensity>32768</Intensity><Stop_Time>0</Stop_Time>
<Total_Requests_To_Generate>$3</Total_Requests_To_Generate></IO_Flow_Parameter_Set_Synthetic></IO_Scenario></MQSim_IO_Scenarios>
EOF
}
synthetic RANDOM_UNIFORM 8 1000 >"$out/wl_setup.xml"
synthetic RANDOM_UNIFORM 8 1000000 >"$out/wl_b1.xml"
synthetic RANDOM_UNIFORM 8 3000000 >"$out/wl_gc.xml"
synthetic STREAMING 256 3900702 >"$out/wl_b4.xml"
cat >"$out/wl_tpcc.xml" <<EOF
$flow_head<IO_Flow_Parameter_Set_Trace_Based>$ids
<File_Path>$mq/traces/tpcc-small.trace</File_Path><Percentage_To_Be_Executed>100</Percentage_To_Be_Executed>
<Relay_Count>50</Relay_Count><Time_Unit>NANOSECOND</Time_Unit></IO_Flow_Parameter_Set_Trace_Based></IO_Scenario></MQSim_IO_Scenarios>
EOF
declare -A mq_args=([setup]="ssd_default.xml wl_setup.xml" [tpcc]="ssd_default.xml wl_tpcc.xml"
  [b1_whole]="ssd_ideal.xml wl_b1.xml" [b1_seg4b]="ssd_default.xml wl_b1.xml"
  [gc_8k]="ssd_16g.xml wl_gc.xml" [gc_4k]="ssd_16g.xml wl_gc.xml" [b4]="ssd_default.xml wl_b4.xml")

want=" ${*:-setup tpcc b1_whole b1_seg4b gc_8k gc_4k} "
echo "| row | MQSim wall (CPU) | SSDTwin wall (CPU) | MQSim / SSDTwin wall, median (min-max) over $pairs pairs | peak MiB MQSim / SSDTwin |"
echo "|---|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r name _ label args <<<"$r"
  [[ $want == *" $name "* ]] || continue
  read -r ssd wl <<<"${mq_args[$name]}"
  # MQSim first in each pair; no warm-up pair.
  python3 bench/harness.py paired -n "$pairs" -w 0 --row "$label" \
    "cd $out && $mq/MQSim -i $ssd -w $wl" \
    "$bin run -q --charts script $args --out $out/$name"
done
