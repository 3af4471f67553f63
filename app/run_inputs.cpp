#include "app/run_inputs.h"

#include <chrono>

#include "app/runner.h"

namespace ssdtwin {

RunInputs read_drive(const std::string& drive_file, const std::vector<std::string>& sets, bool verify) {
  RunInputs in;
  in.drive_doc = ConfigDoc::load(drive_file, "drive", sets);
  const auto start = std::chrono::steady_clock::now();
  in.drive = std::make_unique<Drive>(in.drive_doc->root(), verify);
  in.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return in;
}

void read_workload(RunInputs& in, const std::string& workload_file, const std::vector<std::string>& sets) {
  in.workload_doc = ConfigDoc::load(workload_file, "workload", sets);
  in.workload = WorkloadSpec::from_config(in.workload_doc->root(), in.drive->user_bytes());
  in.workload_doc->check_unused();
}

void check_run_inputs(const RunInputs& in, const std::vector<std::string>& sets, bool warn) {
  in.drive_doc->check_unused();
  const Drive& drive = *in.drive;
  const WorkloadSpec& workload = in.workload;
  for (std::size_t i = 0; i < workload.block_faults.size(); ++i) {
    const auto& f = workload.block_faults[i];
    if (f.die >= drive.geo.dies() || f.block >= drive.geo.blocks_per_plane) {
      const ConfigNode node = in.workload_doc->root().child("faults").children("fail_block")[i];
      node.fail(f.die >= drive.geo.dies() ? "die" : "block",
                "expected a die below " + std::to_string(drive.geo.dies()) + " and a block below " +
                    std::to_string(drive.geo.blocks_per_plane) + " (the drive's geometry)");
    }
  }
  for (std::size_t i = 0; i < workload.die_faults.size(); ++i)
    if (workload.die_faults[i].die >= drive.geo.dies())
      in.workload_doc->root().child("faults").children("fail_die")[i].fail(
          "die", "expected a die below " + std::to_string(drive.geo.dies()) + " (the drive's geometry)");
  for (const auto& s : sets) {
    if (s.rfind("drive.", 0) != 0 && s.rfind("workload.", 0) != 0)
      throw ConfigError("--set " + s + ": expected a key starting with drive. or workload.");
  }
  power_policy_of(drive, workload, warn);  // the same check the run makes, before it
}

}  // namespace ssdtwin
