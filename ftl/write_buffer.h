// The controller's write buffer (SRAM or DRAM): host data waits here in
// arrival order until a whole program unit can be written to a die.
//
// Capacity is counted in 4 KiB slots and covers three kinds of use: space
// reserved for a command whose data is still crossing the link, entries
// waiting in the buffer, and entries handed to a program operation that has
// not finished yet (the data must stay until the program succeeds).
// An entry whose logical page is overwritten or trimmed while it waits
// becomes stale and is dropped when the flush reaches it.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/address.h"
#include "ftl/mapping_table.h"

namespace ssdtwin {

class WriteBuffer {
 public:
  // `headroom`: extra entries beyond the host's capacity for translation
  // pages being written back, so a map write-back never waits behind host data.
  WriteBuffer(std::uint32_t capacity_slots, std::uint32_t headroom, bool keep_versions);

  std::uint32_t capacity() const { return capacity_; }
  std::uint32_t used() const { return used_; }
  bool reserve(std::uint32_t slots) {
    if (used_ + slots > capacity_) return false;
    used_ += slots;
    return true;
  }
  bool reserve_map() {
    if (used_ + 1 > ring_) return false;
    ++used_;
    return true;
  }
  void release(std::uint32_t slots) { used_ -= slots; }

  // Appends a logical page whose space was reserved; returns the mapping
  // value that refers to it (kBufferBase + ring index).
  std::uint32_t push(Owner owner, std::uint32_t version);
  // Marks a waiting entry stale (its page was overwritten or trimmed).
  void mark_stale() { --valid_; }

  std::uint32_t valid_entries() const { return valid_; }
  std::uint32_t waiting_entries() const { return count_; }
  // The oldest waiting entry; the caller checks whether it is still current.
  Owner front_owner() const { return owners_[head_]; }
  std::uint32_t front_ref() const { return kBufferBase + head_; }
  std::uint32_t front_version() const { return versions_.empty() ? 0 : versions_[head_]; }
  // Removes the front entry; `was_valid` says whether it was still current.
  void pop(bool was_valid) {
    head_ = head_ + 1 == ring_ ? 0 : head_ + 1;
    --count_;
    if (was_valid) --valid_;
  }
  void archive(StateArchive& ar);  // drive-state snapshots (ftl/snapshot.h)
  std::uint32_t version_of(std::uint32_t ref) const {
    return versions_.empty() ? 0 : versions_[ref - kBufferBase];
  }

 private:
  std::uint32_t capacity_;
  std::uint32_t ring_;  // capacity + headroom
  std::uint32_t used_ = 0;
  std::vector<Owner> owners_;  // logical pages, or translation pages being written back
  std::vector<std::uint32_t> versions_;  // only in verification mode
  std::uint32_t head_ = 0, count_ = 0, valid_ = 0;
};

}  // namespace ssdtwin
