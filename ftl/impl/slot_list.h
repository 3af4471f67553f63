// An intrusive doubly linked list over slot indices, for eviction orders.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cache_allocator.h"
#include "sim/prefetch.h"

namespace ssdtwin {

class StateArchive;  // ftl/snapshot.h

class SlotList {
 public:
  static constexpr std::uint32_t kNil = 0xFFFFFFFFu;
  explicit SlotList(std::uint32_t slots) : links_(slots, Links{kNil, kNil}) {}

  void push_front(std::uint32_t s) {
    links_[s] = Links{kNil, head_};
    if (head_ != kNil) links_[head_].prev = s;
    head_ = s;
    if (tail_ == kNil) tail_ = s;
  }
  void remove(std::uint32_t s) {
    const Links l = links_[s];
    if (l.prev != kNil) links_[l.prev].next = l.next; else head_ = l.next;
    if (l.next != kNil) links_[l.next].prev = l.prev; else tail_ = l.prev;
    links_[s] = Links{kNil, kNil};
  }
  // remove(s) then push_front(s), for a resident slot, in fewer steps:
  // a slot at the front stays, and one behind it has a predecessor.
  void move_to_front(std::uint32_t s) {
    if (s == head_) return;
    const Links l = links_[s];
    links_[l.prev].next = l.next;
    if (l.next != kNil) links_[l.next].prev = l.prev; else tail_ = l.prev;
    links_[s] = Links{kNil, head_};
    links_[head_].prev = s;
    head_ = s;
  }
  std::uint32_t back() const { return tail_; }
  std::uint32_t before(std::uint32_t s) const { return links_[s].prev; }
  void prefetch(std::uint32_t s) const { prefetch_line(&links_[s]); }
  void archive(StateArchive& ar);  // drive-state snapshots

 private:
  // A slot's two links side by side: one cache line per slot visited.
  struct Links {
    std::uint32_t prev, next;
  };
  std::vector<Links, CacheAllocator<Links>> links_;
  std::uint32_t head_ = kNil, tail_ = kNil;
};

}  // namespace ssdtwin
