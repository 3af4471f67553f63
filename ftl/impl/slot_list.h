// An intrusive doubly linked list over slot indices, for eviction orders.
#pragma once

#include <cstdint>
#include <vector>

namespace ssdtwin {

class StateArchive;  // ftl/snapshot.h

class SlotList {
 public:
  static constexpr std::uint32_t kNil = 0xFFFFFFFFu;
  explicit SlotList(std::uint32_t slots) : prev_(slots, kNil), next_(slots, kNil) {}

  void push_front(std::uint32_t s) {
    prev_[s] = kNil;
    next_[s] = head_;
    if (head_ != kNil) prev_[head_] = s;
    head_ = s;
    if (tail_ == kNil) tail_ = s;
  }
  void remove(std::uint32_t s) {
    if (prev_[s] != kNil) next_[prev_[s]] = next_[s]; else head_ = next_[s];
    if (next_[s] != kNil) prev_[next_[s]] = prev_[s]; else tail_ = prev_[s];
    prev_[s] = next_[s] = kNil;
  }
  std::uint32_t back() const { return tail_; }
  void archive(StateArchive& ar);  // drive-state snapshots

 private:
  std::vector<std::uint32_t> prev_, next_;
  std::uint32_t head_ = kNil, tail_ = kNil;
};

}  // namespace ssdtwin
