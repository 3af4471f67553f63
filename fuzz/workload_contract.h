// The workload loaders' contract, checked on what they return whatever the
// input (YAML workloads and fio job files alike): every phase's range lies
// within the drive's user capacity, and every phase moves data.
#pragma once

#include <cstdint>

#include "fuzz/fuzz_support.h"
#include "host/workload/workload.h"

namespace ssdtwin::fuzz {

inline void check_workload_contract(const WorkloadSpec& w, std::uint64_t user_bytes) {
  if (w.phases.empty()) finding("workload loaded with no phases");
  for (const PhaseSpec& p : w.phases) {
    if (p.offset >= user_bytes || p.span > user_bytes - p.offset)
      finding("phase range outside the user capacity");
    if (p.bs == 0 || (p.iodepth == 0 && p.rw != RwKind::kTrace))
      finding("phase with no transfer size or queue depth");
  }
  if (w.interval == 0) finding("timeseries interval of 0");
}

}  // namespace ssdtwin::fuzz
