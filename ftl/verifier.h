// Data-integrity checking for verification runs (--verify).
//
// Every host write gets a fresh version stamp; the stamp travels with the
// data through the write buffer, programs and GC relocations, and every read
// compares what it finds with the latest stamp written to that logical page.
// Off by default: it costs 4 bytes per logical page and per physical slot.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ftl/address.h"

namespace ssdtwin {

class Verifier {
 public:
  static constexpr std::uint32_t kNone = 0;  // never written, or trimmed

  Verifier(bool enabled, std::uint64_t logical_pages, std::uint64_t physical_slots) {
    if (!enabled) return;
    expected_.assign(logical_pages, kNone);
    slot_.assign(physical_slots, kNone);
  }
  bool enabled() const { return !expected_.empty(); }

  std::uint32_t on_write(Lpn lpn) { return expected_[lpn] = ++last_; }
  void on_trim(Lpn lpn) { expected_[lpn] = kNone; }
  std::uint32_t expected(Lpn lpn) const { return expected_[lpn]; }
  void set_slot(Ppa p, std::uint32_t version) { slot_[p] = version; }
  std::uint32_t slot(Ppa p) const { return slot_[p]; }
  // After a power cut: the versions the rebuilt drive holds (ftl/recovery/power_loss.h).
  void restore(std::vector<std::uint32_t> expected, std::vector<std::uint32_t> slots,
               std::uint32_t last) {
    expected_ = std::move(expected);
    slot_ = std::move(slots);
    last_ = last;
  }
  void restore_expected(Lpn lpn, std::uint32_t version) { expected_[lpn] = version; }
  std::uint32_t last() const { return last_; }
  const std::vector<std::uint32_t>& expected_all() const { return expected_; }
  const std::vector<std::uint32_t>& slots_all() const { return slot_; }
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)
  void erase(Ppa first, std::uint32_t count) {
    for (std::uint32_t i = 0; i < count; ++i) slot_[first + i] = kNone;
  }

 private:
  std::vector<std::uint32_t> expected_;
  std::vector<std::uint32_t> slot_;
  std::uint32_t last_ = 0;
};

}  // namespace ssdtwin
