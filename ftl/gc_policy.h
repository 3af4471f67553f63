// Garbage-collection victim selection: a named, pluggable policy.
//
// To add a policy: implement GcPolicy in ftl/impl/gc_<name>.cpp, expose a
// factory, and add one line to the table in ftl/gc_policy.cpp. Drive configs
// choose it with `ftl.gc.policy: <name>`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/policy_table.h"
#include "sim/rng.h"

namespace ssdtwin {

class BlockManager;

class GcPolicy {
 public:
  virtual ~GcPolicy() = default;
  // Returns the block of `die` to collect among its candidates
  // (BlockManager::gc_candidate: full, native mode), or kNoBlock when
  // collecting none would free space. Must be deterministic given the block
  // state and `rng`.
  virtual std::uint32_t select_victim(const BlockManager& blocks, std::uint32_t die,
                                      Rng& rng) = 0;
};

using GcPolicyInfo = PolicyInfo<GcPolicy>;

const std::vector<GcPolicyInfo>& gc_policies();
std::vector<std::string> gc_policy_names();
std::unique_ptr<GcPolicy> make_gc_policy(const std::string& name);  // name must be registered

}  // namespace ssdtwin
