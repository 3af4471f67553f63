// Helpers shared by the test binaries: build drives and workloads from the
// repository's configs (with overrides) or from inline YAML.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "app/drive.h"
#include "app/report.h"
#include "app/runner.h"
#include "ftl/slc/slc_cache.h"
#include "host/host_link.h"
#include "host/workload/workload.h"
#include "sim/config.h"

namespace ssdtwin::test {

inline std::string source_path(const std::string& rel) {
  return std::string(SSDTWIN_SOURCE_DIR) + "/" + rel;
}

struct TestDrive {
  std::unique_ptr<ConfigDoc> doc;
  std::unique_ptr<Drive> drive;
};

inline TestDrive make_drive(const std::string& rel_path, const std::vector<std::string>& sets = {},
                            bool verify = false) {
  TestDrive t;
  t.doc = ConfigDoc::load(source_path(rel_path), "drive", sets);
  t.drive = std::make_unique<Drive>(t.doc->root(), verify);
  t.doc->check_unused();
  return t;
}

// `resolved_json` (optional) receives the resolved workload, for RunMeta.
inline WorkloadSpec make_workload(const std::string& yaml, std::uint64_t user_bytes,
                                  std::string* resolved_json = nullptr) {
  auto doc = ConfigDoc::parse(yaml, "inline-workload.yaml", "workload", {});
  WorkloadSpec w = WorkloadSpec::from_config(doc->root(), user_bytes);
  doc->check_unused();
  if (resolved_json) *resolved_json = doc->resolved_json();
  return w;
}

inline RunReport run_quiet(Drive& d, const WorkloadSpec& w) {
  RunOptions opt;
  opt.progress = false;
  return run_workload(d, w, opt);
}

// A run whose results folder was written as `ssdtwin run` writes it. The
// workload is held by pointer because the report points into its phases.
struct FolderRun {
  std::unique_ptr<WorkloadSpec> workload;
  RunReport report;
};

inline FolderRun run_into_folder(TestDrive& t, const std::string& workload_yaml,
                                 const std::string& out_dir) {
  FolderRun r;
  RunMeta meta;
  r.workload = std::make_unique<WorkloadSpec>(
      make_workload(workload_yaml, t.drive->user_bytes(), &meta.workload_resolved_json));
  r.report = run_quiet(*t.drive, *r.workload);
  meta.drive_resolved_json = t.doc->resolved_json();
  write_results(out_dir, *t.drive, *r.workload, r.report, meta);
  return r;
}

// Writes [0, span) sequentially, lets the drive idle for `idle`, then reads
// `reads` random 4 KiB pages of it at QD1: report.phases[1]. The workload
// comes back with the report, which points into its phases.
inline FolderRun write_then_read_qd1(Drive& d, const std::string& span, const std::string& idle,
                                     int reads) {
  const std::string range = "size: " + span + ", ";
  FolderRun r;
  r.workload = std::make_unique<WorkloadSpec>(
      make_workload("workload:\n  phases:\n"
                    "    - {name: write, rw: write, bs: 128KiB, iodepth: 32, " +
                        range + "io_size: " + span + ", idle_after: " + idle +
                        "}\n"
                        "    - {name: randread, rw: randread, bs: 4KiB, iodepth: 1, " +
                        range + "number_ios: " + std::to_string(reads) + "}\n",
                    d.user_bytes()));
  r.report = run_quiet(d, *r.workload);
  return r;
}

inline double seconds_of(const PhaseReport& p) { return to_seconds(p.result.end - p.result.start); }

// Latency of one 4 KiB read at QD1 with array read time `tR`, as the sum of
// its parts: protocol, firmware, map lookup, command cycles, tR, the NAND
// bus, ECC decode and the host link.
inline Tick qd1_read_latency(const Drive& d, Tick tR) {
  return d.hif_cfg.submission_latency + d.ctrl_cfg.command_time + d.ctrl_cfg.page_time +
         d.ftl_cfg.map.access_time + d.timing.t_cmd + tR + d.timing.bus_time(kSectorBytes) +
         d.ctrl_cfg.ecc_decode + HostLink(d.hif_cfg.link).duration(kSectorBytes) +
         d.hif_cfg.completion_latency;
}

// Sequential write bound of a die-parallel program stream, MB/s: every die
// programs `unit` bytes per (t_cmd + data-in + tPROG), and each channel
// carries the data-in of its dies.
inline double program_bound(const Drive& d, CellMode m, std::uint32_t pages_per_program) {
  const double unit =
      static_cast<double>(pages_per_program) * d.geo.slots_per_die_page() * kSectorBytes;
  const Tick data_in = d.timing.t_cmd + d.timing.bus_time(static_cast<std::uint64_t>(unit));
  const double dies = d.geo.dies() * unit / to_seconds(data_in + d.timing.of(m).program_time(0));
  const double channels = d.geo.channels * unit / to_seconds(data_in);
  return std::min({dies, channels, d.hif_cfg.link.payload_bytes_per_s()}) / 1e6;
}

// The SLC cache's capacity on the empty drive, bytes: its static blocks and
// the dynamic region's budget.
inline double empty_cache_bytes(const Drive& d) {
  const SlcCache& c = d.ftl->slc();
  return static_cast<double>(d.ftl_cfg.slc.static_blocks_per_die + c.dynamic_budget_blocks()) *
         d.geo.dies() * static_cast<double>(c.block_bytes());
}

}  // namespace ssdtwin::test
