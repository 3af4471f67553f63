// Runs a workload's phases in sequence on one drive and collects what each
// phase did (host-side measurements and deltas of the drive's counters).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/drive.h"
#include "app/timeseries_columns.h"
#include "ftl/ftl_stats.h"
#include "host/trace/trace_replay.h"
#include "host/workload/io_generator.h"
#include "host/workload/workload.h"
#include "nand/nand_array.h"

namespace ssdtwin {

// drive.power: the meter's and the power states' running totals at one time.
struct PowerSnapshot {
  Tick at = 0;
  EnergyTotals energy;
  PowerStateStats states;
};

struct PhaseReport {
  const PhaseSpec* spec = nullptr;
  PhaseResult result;
  NandStats nand_before, nand_after;
  FtlStats ftl_before, ftl_after;
  std::uint64_t buffer_waits = 0;
  std::uint32_t min_free_blocks = 0;
  BlockManager::Wear wear;
  BlockManager::ValidShares valid_shares;
  double wall_seconds = 0;  // host time spent simulating the phase
  double slc_bytes_at_end = 0;
  // Timed phases: the drive's activity sampled at interval boundaries
  // (columns: activity_columns(), row 0 at the start of measurement).
  std::unique_ptr<BoundarySampler> activity;
  // Drives with a power model: totals at the start of measurement and at
  // the end, the peak over the phase, and the energy at each interval
  // boundary (timeseries power_w).
  bool has_power = false;
  PowerSnapshot power_before, power_after;
  double peak_power_w = 0;
  std::unique_ptr<BoundarySampler> energy;
  // rw: trace phases: what the replay and the reader counted.
  std::unique_ptr<TraceReplayStats> trace;
  TraceStats trace_read;
  std::string trace_format;
};

// One power cut of a run (workload faults.power_cuts) and the recovery.
struct PowerCutReport {
  Tick at = 0;              // on the run's clock (the planned time plus earlier recoveries)
  std::string phase;        // the phase it interrupted
  CutAccount account;       // what the model says the cut loses
  RecoveryReport recovery;  // what recovery read, took and found lost
};

struct RunReport {
  std::vector<PhaseReport> phases;
  std::vector<PowerCutReport> power_cuts;
  // Verification on drives a power cut replaced (the last drive's own
  // counters hold the rest): checks, wrong data, host reads failed.
  std::uint64_t verify_checks_before = 0, verify_errors_before = 0, reads_failed_before = 0;
  double wall_seconds = 0;
  std::uint64_t events = 0;
  Tick sim_end = 0;
  bool cut = false;  // stopped at RunOptions::stop_at; the last phase is partial
  // Power cuts the workload listed that never came: the workload ended
  // first (the caller refuses such a workload).
  std::size_t power_cuts_missed = 0;
  // Why the drive stopped before the workload ended (e.g. "all dies
  // failed"); the last phase is partial. Empty: it did not.
  std::string failure;
};

// The host's power settings (workload power_management) for this drive:
// ConfigError naming the key for a state the drive lacks; none (with a
// warning, if `warn`) on a drive without a power model. `check` and `run`
// both ask it before anything runs.
std::optional<PowerPolicy> power_policy_of(const Drive& drive, const WorkloadSpec& workload,
                                           bool warn = true);

// What the run's reads and power cuts did to the data, over every drive a
// power cut replaced: the one source of the console's verification line
// and summary.json's `verify` block.
struct VerifySummary {
  std::uint64_t checks = 0;        // reads checked against the latest write (--verify)
  std::uint64_t wrong_data = 0;    // reads that returned other data than the latest write
  std::uint64_t reads_failed = 0;  // host 4 KiB reads that failed: the data lost, reported as lost
  std::uint64_t cut_pages_lost = 0;    // accepted writes power cuts lost
  std::uint64_t cut_loss_allowed = 0;  // ... of them volatile at the cut, as the model allows
  // Wrong data, or a cut that lost more (or other) than its volatile writes,
  // fails verification; a failed read is lost data reported as such.
  bool passed() const { return wrong_data == 0 && cut_pages_lost == cut_loss_allowed; }
};
VerifySummary verify_summary(const Drive& drive, const RunReport& report);

// Drive-state snapshots (issue 14): the state at the end of the workload's
// preconditioning (its leading `precondition: true` phases), saved to a
// file or loaded from one instead of running those phases.
struct SnapshotOptions {
  std::string save;   // write the state here, then go on
  std::string load;   // start from this state; the preconditioning phases are skipped
  bool stop = false;  // end the run once the state is saved (--precondition-only)
  // What the state stands for (Drive::save_state): the resolved drive and
  // workload configs (ConfigDoc::resolved_json).
  std::string drive_json, workload_json;
};

struct RunOptions {
  bool progress = true;  // progress lines on stderr for long runs
  // A power cut at this simulated time (0: none): the run stops there, mid
  // phase, and leaves the drive as the cut finds it for Ftl::power_cut. The
  // drive must not run on after: recover into a newly built one.
  Tick stop_at = 0;
  // A power cut once the phases have completed this many host IOs (0: none).
  std::uint64_t stop_after_ios = 0;
  SnapshotOptions snapshot;
};

// The workload's preconditioning: its leading `precondition: true` phases.
// Every run of a workload with measured phases after them settles the drive
// at their end (buffered data programmed, relocations finished: nothing in
// flight), the point a snapshot is taken at; a run from a snapshot resumes
// there, so plain, saving and loading runs measure the same drive.
std::size_t precondition_phases(const WorkloadSpec& workload);
// What a snapshot of `workload`'s preconditioning stands for.
SnapshotKey snapshot_key(const Drive& drive, const SnapshotOptions& s,
                         std::size_t precondition_phases);

// Throws std::runtime_error if the simulation stalls (a model bug).
RunReport run_workload(Drive& drive, const WorkloadSpec& workload, const RunOptions& opt);

// A run with the workload's faults: injected uncorrectable reads, and power
// cuts. At each cut the drive as the cut leaves it (Ftl::power_cut) is
// recovered into a new one from `build` (needs verification mode), simulated
// time goes on from the cut plus the recovery, and the interrupted phase
// goes on (the host runs through the cut: the commands the drive held fail
// and are issued again), so every cut a phase's span holds comes. Cut times,
// phase runtimes and idle times count powered time: each recovery pushes
// the later cuts back; IO counts count the phases' IOs. Cuts after the
// workload's end are counted in power_cuts_missed. `drive` ends as the last
// drive. Without faults, the same as run_workload.
RunReport run_with_faults(std::unique_ptr<Drive>& drive,
                          const std::function<std::unique_ptr<Drive>()>& build,
                          const WorkloadSpec& workload, const RunOptions& opt);

}  // namespace ssdtwin
