// A workload from YAML text (plus "#--set" overrides, see fuzz_support.h),
// loaded as `ssdtwin run` loads it for a 250 GB drive: WorkloadSpec's reader
// with every phase and its checks, unknown keys, the resolved config.
// Beyond "no crash", the loader's contract is checked on what it returns:
// every phase's range lies within the drive's user capacity.
//
// The file name given to the parser sits in configs/workloads/, so trace
// phases find the sample traces by the relative paths the shipped
// workloads use (../../traces/...); the trace itself is only opened at run
// time, not by the loader.
#include <string>

#include "fuzz/fuzz_support.h"
#include "fuzz/workload_contract.h"
#include "host/workload/workload.h"
#include "sim/config.h"

using namespace ssdtwin;

namespace {

constexpr std::uint64_t kUserBytes = 250'000'000'000;  // the WD Blue SN500 of the main job
const std::string kFile = std::string(SSDTWIN_SOURCE_DIR) + "/configs/workloads/fuzz.yaml";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::text_of(data, size);
  try {
    const auto doc = ConfigDoc::parse(text, kFile, "workload", fuzz::overrides_in(text));
    const WorkloadSpec w = WorkloadSpec::from_config(doc->root(), kUserBytes);
    doc->check_unused();
    doc->resolved_json();
    fuzz::check_workload_contract(w, kUserBytes);
  } catch (const ConfigError& e) {
    fuzz::expected(e);
  }
  return 0;
}
