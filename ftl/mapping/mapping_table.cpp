#include "ftl/mapping/mapping_table.h"

#include <algorithm>
#include <string>

#include "sim/state_archive.h"

namespace ssdtwin {

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void MappingTable::archive(StateArchive& ar) {
  // The directory (none once flat), then the leaves handed out so far
  // (the pool's tail is zero in a fresh table and stays unsaved).
  ar.pod(flat_);
  if (!flat_) ar.array(dir_);
  const std::uint32_t had = next_leaf_;
  ar.pod(next_leaf_);
  if (ar.loading() && (next_leaf_ == 0 || next_leaf_ > leaves_.size() / kLeafEntries))
    ar.fail("a forward map of " + std::to_string(next_leaf_) +
            " leaves where this drive has room for " +
            std::to_string(leaves_.size() / kLeafEntries));
  ar.raw(leaves_.data(), std::uint64_t{next_leaf_} * kLeafEntries * sizeof(std::uint32_t));
  // Leaves this table had handed out beyond the snapshot's are handed out again: zero them.
  for (std::uint64_t i = std::uint64_t{next_leaf_} * kLeafEntries;
       i < std::uint64_t{had} * kLeafEntries; ++i)
    leaves_[i] = 0;
  ar.array(p2l_);
  ar.array(gtd_);
}

void MappingTable::flatten() {
  // dir_ holds a permutation: range r's leaf is at slot dir_[r] (1..n).
  // First it is inverted in place (slot s + 1 -> the range whose leaf it
  // holds), following each cycle once; then the leaves are moved along
  // the inverse's cycles with one leaf in hand. The top bit marks what is
  // done, in place of a second table (a 512 GiB drive's would be 16 MiB,
  // past the memory goal at the moment the table flattens).
  constexpr std::uint32_t kDone = 0x80000000u;
  const std::uint32_t n = static_cast<std::uint32_t>(dir_.size());
  // A sequential fill hands the leaves out in logical order: ranges still
  // without one take theirs in the same order, so that its leaves stay put.
  for (std::uint32_t r = 0; r < n; ++r)
    if (dir_[r] == 0) dir_[r] = next_leaf_++;
  for (std::uint32_t r = 0; r < n; ++r) {
    if (dir_[r] & kDone) continue;
    std::uint32_t prev = r, cur = dir_[r] - 1;
    while (cur != r) {
      const std::uint32_t next = dir_[cur] - 1;
      dir_[cur] = prev | kDone;
      prev = cur;
      cur = next;
    }
    dir_[r] = prev | kDone;
  }
  for (std::uint32_t s = 0; s < n; ++s) dir_[s] &= ~kDone;
  // Now dir_[s]: the range whose leaf is at slot s + 1, where range
  // dir_[s]'s leaf belongs at slot dir_[s] + 1.
  std::uint32_t hand[kLeafEntries];
  auto leaf = [&](std::uint32_t s) { return &leaves_[(std::uint64_t{s} + 1) * kLeafEntries]; };
  for (std::uint32_t s = 0; s < n; ++s) {
    if (dir_[s] & kDone) continue;
    std::uint32_t dest = dir_[s];
    dir_[s] |= kDone;
    if (dest == s) continue;
    std::copy_n(leaf(s), kLeafEntries, hand);
    while (dest != s) {
      std::swap_ranges(hand, hand + kLeafEntries, leaf(dest));
      const std::uint32_t next = dir_[dest];
      dir_[dest] |= kDone;
      dest = next;
    }
    std::copy_n(hand, kLeafEntries, leaf(s));
  }
  dir_.clear();
  flat_ = true;
}

}  // namespace ssdtwin
