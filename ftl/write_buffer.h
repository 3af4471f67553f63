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
#include "ftl/mapping/mapping_table.h"

namespace ssdtwin {

class WriteBuffer {
 public:
  // `headroom`: extra entries beyond the host's capacity for translation
  // pages being written back, so a map write-back never waits behind host data.
  // `lanes`: queues of entries that are programmed apart (NVMe FDP: one per
  // reclaim unit handle, so that a program unit holds one handle's data);
  // they share the capacity, each has a ring able to hold all of it.
  WriteBuffer(std::uint32_t capacity_slots, std::uint32_t headroom, bool keep_versions,
              std::uint32_t lanes = 1);

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

  std::uint32_t lanes() const { return static_cast<std::uint32_t>(lane_.size()); }
  // Appends a logical page whose space was reserved to `lane`; returns the
  // mapping value that refers to it (kBufferBase + ring index). `seq`: its
  // entry number (kept with several lanes, for the oldest waiting one).
  std::uint32_t push(Owner owner, std::uint32_t version, std::uint32_t lane, std::uint64_t seq) {
    const std::uint32_t at = append(lane, owner, version);
    if (!seqs_.empty()) seqs_[at] = seq;
    return kBufferBase + at;
  }
  // The one-lane buffer's push (no FDP: lane 0, no entry numbers), taken
  // once per host page.
  std::uint32_t push(Owner owner, std::uint32_t version) {
    return kBufferBase + append(0, owner, version);
  }
  // Marks the waiting entry `ref` stale (its page was overwritten or trimmed).
  void mark_stale(std::uint32_t ref) {
    --valid_;
    if (lane_.size() > 1) --lane_[(ref - kBufferBase) / ring_].valid;
  }

  std::uint32_t valid_entries() const { return valid_; }
  std::uint32_t waiting_entries() const { return count_; }
  std::uint32_t valid_entries(std::uint32_t lane) const { return lane_[lane].valid; }
  std::uint32_t waiting_entries(std::uint32_t lane) const { return lane_[lane].count; }
  // The oldest waiting entry of a lane; the caller checks whether it is still current.
  Owner front_owner(std::uint32_t lane = 0) const { return owners_[base(lane) + lane_[lane].head]; }
  std::uint32_t front_ref(std::uint32_t lane = 0) const {
    return kBufferBase + base(lane) + lane_[lane].head;
  }
  std::uint32_t front_version(std::uint32_t lane = 0) const {
    return versions_.empty() ? 0 : versions_[base(lane) + lane_[lane].head];
  }
  // With several lanes: the entry number of a lane's oldest waiting entry.
  std::uint64_t front_seq(std::uint32_t lane) const { return seqs_[base(lane) + lane_[lane].head]; }
  // The lowest entry number still waiting in any lane (`none` if none waits).
  std::uint64_t oldest_waiting(std::uint64_t none) const;
  // Takes a lane's waiting entries from its front, in order, while
  // `take(owner, ref, version)` returns 0 (the entry was stale) or 1 (it was
  // current); -1 stops, leaving that entry at the front. One pass with the
  // ring's position in registers: the flush's per-page loop.
  template <class Take>
  void take_front(std::uint32_t lane, Take&& take) {
    Lane& l = lane_[lane];
    const std::uint32_t b = base(lane);
    const Owner* owners = owners_.data() + b;
    const std::uint32_t* versions = versions_.empty() ? nullptr : versions_.data() + b;
    std::uint32_t head = l.head, left = l.count, valid = 0;
    while (left > 0) {
      const int r = take(owners[head], kBufferBase + b + head, versions ? versions[head] : 0u);
      if (r < 0) break;
      valid += static_cast<std::uint32_t>(r);
      head = head + 1 == ring_ ? 0 : head + 1;
      --left;
    }
    count_ -= l.count - left;
    valid_ -= valid;
    l.valid -= valid;
    l.head = head;
    l.count = left;
  }
  // Removes a lane's front entry; `was_valid` says whether it was still current.
  void pop(bool was_valid, std::uint32_t lane = 0) {
    Lane& l = lane_[lane];
    l.head = l.head + 1 == ring_ ? 0 : l.head + 1;
    --l.count;
    --count_;
    if (was_valid) {
      --l.valid;
      --valid_;
    }
  }
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)
  std::uint32_t version_of(std::uint32_t ref) const {
    return versions_.empty() ? 0 : versions_[ref - kBufferBase];
  }

 private:
  struct Lane {
    std::uint32_t head = 0, count = 0, valid = 0;
  };
  std::uint32_t base(std::uint32_t lane) const { return lane * ring_; }
  // Appends to a lane's ring; returns the entry's index.
  std::uint32_t append(std::uint32_t lane, Owner owner, std::uint32_t version) {
    Lane& l = lane_[lane];
    // A ring of `capacity` entries never overflows: every waiting entry holds
    // one reserved slot of capacity.
    if (l.count == ring_) overflow();
    std::uint32_t tail = l.head + l.count;
    if (tail >= ring_) tail -= ring_;
    tail += base(lane);
    owners_[tail] = owner;
    if (!versions_.empty()) versions_[tail] = version;
    ++l.count;
    ++l.valid;
    ++count_;
    ++valid_;
    return tail;
  }
  [[noreturn]] static void overflow();
  std::uint32_t capacity_;
  std::uint32_t ring_;  // capacity + headroom
  std::uint32_t used_ = 0;
  std::vector<Owner> owners_;            // logical pages, or translation pages being written back
  std::vector<std::uint32_t> versions_;  // only in verification mode
  std::vector<std::uint64_t> seqs_;      // only with several lanes
  std::vector<Lane> lane_;
  std::uint32_t count_ = 0, valid_ = 0;  // over all lanes
};

}  // namespace ssdtwin
