// Runs a workload's phases in sequence on one drive and collects what each
// phase did (host-side measurements and deltas of the drive's counters).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/drive.h"
#include "ftl/ftl_stats.h"
#include "host/io_generator.h"
#include "host/trace_replay.h"
#include "host/workload.h"
#include "nand/nand_array.h"

namespace ssdtwin {

struct PhaseReport {
  const PhaseSpec* spec = nullptr;
  PhaseResult result;
  NandStats nand_before, nand_after;
  FtlStats ftl_before, ftl_after;
  std::uint64_t buffer_waits = 0;
  std::uint32_t min_free_blocks = 0;
  BlockManager::Wear wear;
  double wall_seconds = 0;  // host time spent simulating the phase
  double slc_bytes_at_end = 0;
  // Timed phases: the drive's activity sampled at interval boundaries
  // (columns: activity_columns(), row 0 at the start of measurement).
  std::unique_ptr<BoundarySampler> activity;
  // rw: trace phases: what the replay and the reader counted.
  std::unique_ptr<TraceReplayStats> trace;
  TraceStats trace_read;
  std::string trace_format;
};

// The drive activity sampled per interval into timeseries.csv: running
// totals (written as per-interval differences) and levels.
struct ActivityColumn {
  const char* name;
  bool running_total;  // true: a counter, reported per interval; false: a level
  const char* unit;
  const char* description;
  double (*sample)(const Drive& drive);  // the counter's total or the level, now
};
const std::vector<ActivityColumn>& activity_columns();

struct RunReport {
  std::vector<PhaseReport> phases;
  double wall_seconds = 0;
  std::uint64_t events = 0;
  Tick sim_end = 0;
  bool cut = false;  // stopped at RunOptions::stop_at; the last phase is partial
};

struct RunOptions {
  bool progress = true;  // progress lines on stderr for long runs
  // A power cut at this simulated time (0: none): the run stops there, mid
  // phase, and leaves the drive as the cut finds it for Ftl::power_cut. The
  // drive must not run on after: recover into a newly built one.
  Tick stop_at = 0;
};

// Throws std::runtime_error if the simulation stalls (a model bug).
RunReport run_workload(Drive& drive, const WorkloadSpec& workload, const RunOptions& opt);

}  // namespace ssdtwin
