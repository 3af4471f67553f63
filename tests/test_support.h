// Helpers shared by the test binaries: build drives and workloads from the
// repository's configs (with overrides) or from inline YAML.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/drive.h"
#include "app/runner.h"
#include "host/workload.h"
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

inline WorkloadSpec make_workload(const std::string& yaml, std::uint64_t user_bytes) {
  auto doc = ConfigDoc::parse(yaml, "inline-workload.yaml", "workload", {});
  WorkloadSpec w = WorkloadSpec::from_config(doc->root(), user_bytes);
  doc->check_unused();
  return w;
}

inline RunReport run_quiet(Drive& d, const WorkloadSpec& w) {
  RunOptions opt;
  opt.progress = false;
  return run_workload(d, w, opt);
}

inline double seconds_of(const PhaseReport& p) { return to_seconds(p.result.end - p.result.start); }

}  // namespace ssdtwin::test
