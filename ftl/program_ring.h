// The host programs in flight, in the order their entries left the write
// buffer: the first entry number of each, and whether it has finished. A
// program finishing out of order leaves the ring only behind every older
// one, so the ring's front is the oldest entry not yet known durable: what a
// Flush or FUA write waits for. Sized once for the most there can be (each
// program holds at least one buffer slot).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ssdtwin {

class ProgramRing {
 public:
  explicit ProgramRing(std::uint32_t size) : begin_(size), done_(size) {}
  bool full() const { return count_ == begin_.size(); }
  bool empty() const { return count_ == 0; }
  // Records a program whose entries start at `begin`; returns its tag for
  // FlashTxn::owner (ring index + 1, never 0: RAIN parity programs carry 0).
  std::uint64_t started(std::uint64_t begin) {
    const auto size = static_cast<std::uint32_t>(begin_.size());
    if (count_ == size) throw std::logic_error("host program ring overflow");
    std::uint32_t i = head_ + count_;
    if (i >= size) i -= size;
    begin_[i] = begin;
    done_[i] = 0;
    ++count_;
    return std::uint64_t{i} + 1;
  }
  void finished(std::uint64_t tag) {
    done_[tag - 1] = 1;
    const auto size = static_cast<std::uint32_t>(begin_.size());
    while (count_ > 0 && done_[head_]) {
      head_ = head_ + 1 == size ? 0 : head_ + 1;
      --count_;
    }
  }
  // The first entry of the program `tag` names.
  std::uint64_t first_entry(std::uint64_t tag) const { return begin_[tag - 1]; }
  // The first entry of the oldest program in flight (`none` if none is).
  std::uint64_t oldest(std::uint64_t none) const { return count_ ? begin_[head_] : none; }
  // The lowest first entry among programs not yet finished, or `below` if lower.
  std::uint64_t oldest_unfinished(std::uint64_t below) const {
    const auto size = static_cast<std::uint32_t>(begin_.size());
    for (std::uint32_t k = 0, i = head_; k < count_; ++k, i = i + 1 == size ? 0 : i + 1)
      if (!done_[i]) below = std::min(below, begin_[i]);
    return below;
  }

 private:
  std::vector<std::uint64_t> begin_;
  std::vector<std::uint8_t> done_;
  std::uint32_t head_ = 0, count_ = 0;
};

}  // namespace ssdtwin
