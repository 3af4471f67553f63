// Garbage-collection victim selection: a named, pluggable policy.
//
// To add a policy: implement GcPolicy in ftl/gc/impl/gc_<name>.cpp, expose a
// factory, and add one line to the table in ftl/gc/gc_policy.cpp. Drive configs
// choose it with `ftl.gc.policy: <name>`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "sim/policy_table.h"
#include "sim/rng.h"

namespace ssdtwin {

// What a policy weighs of one candidate: a block, or a super-block (the
// sums over its members).
struct VictimCandidate {
  std::uint64_t valid = 0;       // valid 4 KiB slots
  std::uint64_t capacity = 0;    // slots it holds when full
  std::uint32_t closed_seq = 0;  // when it became full (BlockManager's order)
};

// The candidates of one die: its blocks (BlockManager::gc_candidate: full,
// native mode), indexed by block.
struct DieCandidates {
  const BlockManager& blocks;
  std::uint32_t die;
  std::uint32_t size() const { return blocks.blocks_per_die(); }
  bool get(std::uint32_t b, VictimCandidate& c) const {
    const BlockInfo& info = blocks.info(die, b);
    if (!blocks.gc_candidate(info)) return false;
    c.valid = info.valid;
    c.capacity = blocks.capacity_slots(info);
    c.closed_seq = info.closed_seq;
    return true;
  }
};

// The candidates of a super-block group (ftl.rain.span: dies), indexed by
// block: the super-blocks with `die` as a member, full on every member
// (BlockManager::super_candidate).
struct SuperCandidates {
  const BlockManager& blocks;
  std::uint32_t die;
  std::uint32_t size() const { return blocks.blocks_per_die(); }
  bool get(std::uint32_t b, VictimCandidate& c) const {
    return blocks.super_candidate(die, b, c.valid, c.capacity, c.closed_seq);
  }
};

class GcPolicy {
 public:
  virtual ~GcPolicy() = default;
  // Returns the block of `die` to collect among its candidates, or kNoBlock
  // when collecting none would free space. Must be deterministic given the
  // block state and `rng`.
  virtual std::uint32_t select_victim(const DieCandidates& c, Rng& rng) = 0;
  // The same choice among super-blocks: the super-block index to collect.
  virtual std::uint32_t select_victim(const SuperCandidates& c, Rng& rng) = 0;
  std::uint32_t select_victim(const BlockManager& blocks, std::uint32_t die, Rng& rng) {
    return select_victim(DieCandidates{blocks, die}, rng);
  }
};

// Implements both of GcPolicy's choices with one template, `Choose`, a
// class with `template <class C> std::uint32_t operator()(const C&, Rng&)`.
template <class Choose>
class GcPolicyOf final : public GcPolicy {
 public:
  std::uint32_t select_victim(const DieCandidates& c, Rng& rng) override { return choose_(c, rng); }
  std::uint32_t select_victim(const SuperCandidates& c, Rng& rng) override {
    return choose_(c, rng);
  }

 private:
  Choose choose_;
};

using GcPolicyInfo = PolicyInfo<GcPolicy>;

const std::vector<GcPolicyInfo>& gc_policies();
std::vector<std::string> gc_policy_names();
std::unique_ptr<GcPolicy> make_gc_policy(const std::string& name);  // name must be registered

}  // namespace ssdtwin
