// An fio job file, loaded as `ssdtwin run --fio FILE` loads it for a 250 GB
// drive: sections, includes and ${VAR}s, every option's mapping onto the
// workload. Beyond "no crash", the workload it maps to must keep the
// loaders' contract (fuzz/workload_contract.h), and the jobs must point at
// phases and streams that exist.
//
// The input is written as tests/fio/fuzz_input.fio in a private copy of the
// tree's layout (fuzz/fuzz_files.h), so `include common.inc` and
// `read_iolog=../../traces/...` in the seeds resolve as in the tree.
#include <optional>
#include <string>

#include "fuzz/fuzz_files.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/workload_contract.h"
#include "host/fio/fio_job.h"
#include "sim/config.h"

using namespace ssdtwin;

namespace {

constexpr std::uint64_t kUserBytes = 250'000'000'000;

// The environment the seeds' ${VAR}s see: fixed, so a run is reproducible.
std::optional<std::string> fixed_env(const std::string& name) {
  if (name == "SSDTWIN_FIO_TEST_BS") return "4k";  // tests/fio/common.inc
  return std::nullopt;
}

void check_jobs(const FioWorkload& f) {
  if (f.jobs.empty()) fuzz::finding("fio workload loaded with no jobs");
  for (const FioJobInfo& j : f.jobs) {
    if (j.phase >= f.workload.phases.size())
      fuzz::finding("fio job mapped to a phase that does not exist");
    if (j.numjobs == 0) fuzz::finding("fio job with numjobs 0");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fuzz::MirrorDir dir("tests/fio", "fuzz_input.fio");
  const std::string& path = dir.write(fuzz::text_of(data, size));
  try {
    const FioWorkload f =
        load_fio_workload(path, kUserBytes, (dir.root() / "out").string(), fixed_env);
    fuzz::check_workload_contract(f.workload, kUserBytes);
    check_jobs(f);
  } catch (const ConfigError& e) {
    fuzz::expected(e);
  }
  return 0;
}
