// A set of dies as bits, searched round-robin from a starting die: the
// write-buffer flush looks only at the dies that can take another program
// instead of testing every die each time a program completes (on drives
// with many dies that test dominated a sequential fill).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ssdtwin {

class DieSet {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  explicit DieSet(std::uint32_t dies = 0) : words_((dies + 63) / 64, 0) {}

  void set(std::uint32_t die, bool member) {
    const std::uint64_t bit = std::uint64_t{1} << (die & 63);
    if (member)
      words_[die >> 6] |= bit;
    else
      words_[die >> 6] &= ~bit;
  }
  bool contains(std::uint32_t die) const { return (words_[die >> 6] >> (die & 63)) & 1; }
  void clear() { std::fill(words_.begin(), words_.end(), 0); }
  // Whether any member is not in `skip` (a set of as many dies).
  bool any_outside(const DieSet& skip) const {
    std::uint64_t bits = 0;
    for (std::size_t w = 0; w < words_.size(); ++w) bits |= words_[w] & ~skip.words_[w];
    return bits != 0;
  }

  // The members from `start` up, then from 0 up to `start` (the order of
  // `for i: (start + i) % dies`), until `pick(die)` returns true: that die,
  // or kNone.
  template <class Pick>
  std::uint32_t find_from(std::uint32_t start, Pick&& pick) const {
    return search(start, nullptr, pick);
  }
  // The same over the members not in `skip` (a set of as many dies).
  template <class Pick>
  std::uint32_t find_from(std::uint32_t start, const DieSet& skip, Pick&& pick) const {
    return search(start, &skip, pick);
  }

 private:
  template <class Pick>
  std::uint32_t search(std::uint32_t start, const DieSet* skip, Pick& pick) const {
    const auto n = static_cast<std::uint32_t>(words_.size());
    if (n == 0) return kNone;
    const std::uint32_t shift = start & 63;
    std::uint32_t w = start >> 6;
    for (std::uint32_t k = 0; k <= n; ++k) {
      std::uint64_t bits = words_[w];
      if (skip) bits &= ~skip->words_[w];
      if (k == 0) bits &= ~std::uint64_t{0} << shift;                   // from `start` on
      if (k == n) bits &= shift ? (std::uint64_t{1} << shift) - 1 : 0;  // back below `start`
      while (bits) {
        const std::uint32_t die = (w << 6) | static_cast<std::uint32_t>(__builtin_ctzll(bits));
        bits &= bits - 1;
        if (pick(die)) return die;
      }
      w = w + 1 == n ? 0 : w + 1;
    }
    return kNone;
  }

  std::vector<std::uint64_t> words_;
};

}  // namespace ssdtwin
