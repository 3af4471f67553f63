// An intrusive doubly linked list over slot indices, for eviction orders.
#pragma once

#include <cstdint>

#include "sim/prefetch.h"
#include "sim/zero_array.h"

namespace ssdtwin {

class StateArchive;  // sim/state_archive.h

class SlotList {
 public:
  static constexpr std::uint32_t kNil = 0xFFFFFFFFu;
  // The links are untouched zero pages until a slot is first linked: a
  // cache hands its slots out from 0 up, so a partly used cache writes only
  // the front of the array.
  explicit SlotList(std::uint32_t slots) : links_(slots, ZeroArray<Links>::Fill::kFromFront) {}

  void push_front(std::uint32_t s) {
    links_[s] = Links{0, up(head_)};
    if (head_ != kNil) links_[head_].prev = up(s);
    head_ = s;
    if (tail_ == kNil) tail_ = s;
  }
  void remove(std::uint32_t s) {
    const std::uint32_t prev = before(s), next = after(s);
    if (prev != kNil)
      links_[prev].next = up(next);
    else
      head_ = next;
    if (next != kNil)
      links_[next].prev = up(prev);
    else
      tail_ = prev;
    links_[s] = Links{0, 0};
  }
  // remove(s) then push_front(s), for a resident slot, in fewer steps:
  // a slot at the front stays, and one behind it has a predecessor.
  void move_to_front(std::uint32_t s) {
    if (s == head_) return;
    const std::uint32_t prev = before(s), next = after(s);
    links_[prev].next = up(next);
    if (next != kNil)
      links_[next].prev = up(prev);
    else
      tail_ = prev;
    links_[s] = Links{0, up(head_)};
    links_[head_].prev = up(s);
    head_ = s;
  }
  std::uint32_t back() const { return tail_; }
  std::uint32_t before(std::uint32_t s) const { return down(links_[s].prev); }
  void prefetch(std::uint32_t s) const { prefetch_line(&links_[s]); }
  void archive(StateArchive& ar);  // drive-state snapshots

 private:
  // A slot's two links side by side: one cache line per slot visited.
  // Each is stored plus one, so that the all-zero links of a slot never
  // linked read as kNil (kNil + 1 wraps to 0).
  struct Links {
    std::uint32_t prev, next;
  };
  static std::uint32_t up(std::uint32_t s) { return s + 1; }
  static std::uint32_t down(std::uint32_t v) { return v - 1; }
  std::uint32_t after(std::uint32_t s) const { return down(links_[s].next); }
  ZeroArray<Links> links_;
  std::uint32_t head_ = kNil, tail_ = kNil;
};

}  // namespace ssdtwin
