// SLC write-cache policy: where host program units go (SLC or native mode),
// when the relocator folds SLC blocks into native mode, and which SLC blocks
// are reclaimed without folding. A named, pluggable policy.
//
// To add a policy: implement SlcPolicy in ftl/slc/impl/slc_<name>.cpp, expose a
// factory in ftl/slc/impl/slc_policies.h, and add one line to the table in
// ftl/slc/slc_policy.cpp. Drive configs choose it with
// `ftl.slc_cache.policy: <name>`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/policy_table.h"

namespace ssdtwin {

class SlcCache;

enum class HostTarget : std::uint8_t {
  kNative,      // program in native mode (no cache, or cache full and writing direct)
  kSlcOpen,     // continue the open SLC block
  kSlcStatic,   // open a block of the static SLC pool
  kSlcDynamic,  // open a normal block in SLC mode
  kWait,        // cache full, fold first: this die takes no host data now
};

class SlcPolicy {
 public:
  virtual ~SlcPolicy() = default;
  // Where the next host program unit of `die` goes. Called for every unit
  // the write buffer flushes: must be cheap.
  virtual HostTarget host_target(const SlcCache& cache, std::uint32_t die) const = 0;
  // Whether the relocator of `die` should start folding now (one block at
  // a time), and which full SLC block it folds.
  virtual bool needs_fold(const SlcCache& cache, std::uint32_t die) const = 0;
  virtual std::uint32_t fold_victim(const SlcCache& cache, std::uint32_t die) const = 0;
  // A full SLC block of `die` to erase at once because none of its data is
  // valid any more, or kNoBlock. Called whenever the relocator of `die` is
  // free: must be cheap when there is nothing to reclaim.
  virtual std::uint32_t reclaim_victim(const SlcCache& cache, std::uint32_t die) const = 0;
};

using SlcPolicyInfo = PolicyInfo<SlcPolicy>;

const std::vector<SlcPolicyInfo>& slc_policies();
std::vector<std::string> slc_policy_names();
std::unique_ptr<SlcPolicy> make_slc_policy(const std::string& name);  // name must be registered

}  // namespace ssdtwin
