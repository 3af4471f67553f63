#include "app/run_inputs.h"

#include <algorithm>
#include <chrono>

#include "app/runner.h"
#include "sim/params.h"

namespace ssdtwin {

RunInputs read_drive(const std::string& drive_file, const std::vector<std::string>& sets,
                     bool verify) {
  RunInputs in;
  in.drive_doc = ConfigDoc::load(drive_file, "drive", sets);
  const auto start = std::chrono::steady_clock::now();
  in.drive = std::make_unique<Drive>(in.drive_doc->root(), verify);
  in.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return in;
}

void read_workload(RunInputs& in, const std::string& workload_file,
                   const std::vector<std::string>& sets) {
  in.workload_doc = ConfigDoc::load(workload_file, "workload", sets);
  in.workload = WorkloadSpec::from_config(in.workload_doc->root(), in.drive->user_bytes(),
                                          in.drive->namespaces.bytes_by_id());
  in.workload_doc->check_unused();
}

void check_run_inputs(const RunInputs& in, const std::vector<std::string>& sets, bool warn) {
  in.drive_doc->check_unused();
  const Drive& drive = *in.drive;
  const WorkloadSpec& workload = in.workload;
  for (std::size_t i = 0; i < workload.block_faults.size(); ++i) {
    const auto& f = workload.block_faults[i];
    if (f.die >= drive.geo.dies() || f.block >= drive.geo.blocks_per_plane) {
      const Params node = Params(in.workload_doc->root(), WorkloadSpec::root_params())
                              .child("faults", WorkloadSpec::faults_params())
                              .children("fail_block", WorkloadSpec::fail_block_params())[i];
      node.fail(f.die >= drive.geo.dies() ? "die" : "block",
                "expected a die below " + std::to_string(drive.geo.dies()) + " and a block below " +
                    std::to_string(drive.geo.blocks_per_plane) + " (the drive's geometry)");
    }
  }
  for (std::size_t i = 0; i < workload.die_faults.size(); ++i)
    if (workload.die_faults[i].die >= drive.geo.dies())
      Params(in.workload_doc->root(), WorkloadSpec::root_params())
          .child("faults", WorkloadSpec::faults_params())
          .children("fail_die", WorkloadSpec::fail_die_params())[i]
          .fail("die", "expected a die below " + std::to_string(drive.geo.dies()) +
                           " (the drive's geometry)");
  // Placement identifiers index the namespace's placement handles.
  for (const PhaseSpec& p : workload.phases)
    for (std::size_t k = 0; k < p.streams(); ++k) {
      const PhaseSpec& st = p.stream(k);
      const Namespace* ns = drive.namespaces.find(st.nsid);
      std::uint16_t top = st.placement;
      for (const std::uint16_t pl : st.placements) top = std::max(top, pl);
      if (ns && top < ns->handles.size()) continue;
      const std::string what = ns ? "expected a placement identifier below " +
                                        std::to_string(ns->handles.size()) + " (namespace " +
                                        std::to_string(st.nsid) + "'s placement handles)"
                                  : "expected a namespace the drive declares";
      if (!in.workload_doc)  // an fio job file: the job is named
        throw ConfigError("job '" + st.name + "': " + (ns ? "placement: " : "namespace: ") + what);
      const Params phase = Params(in.workload_doc->root(), WorkloadSpec::root_params())
                               .children("phases", WorkloadSpec::phase_params())[p.source_index];
      const Params node =
          phase.has("jobs") ? phase.children("jobs", WorkloadSpec::phase_params())[k] : phase;
      node.fail(ns ? "placement" : "namespace", what);
    }
  for (const auto& s : sets) {
    if (s.rfind("drive.", 0) != 0 && s.rfind("workload.", 0) != 0)
      throw ConfigError("--set " + s + ": expected a key starting with drive. or workload.");
  }
  power_policy_of(drive, workload, warn);  // the same check the run makes, before it
}

}  // namespace ssdtwin
