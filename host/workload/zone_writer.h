// The host side of a zoned namespace: what a phase with `zoned:` (or fio's
// zonemode=zbd) issues, keeping each zone's write pointer as the host
// knows it. The drive's zone size and capacity come from the drive (as a
// host reads them with Report Zones).
//
//   write / randwrite: `open_zones` zones of the phase's range written at
//     once, each sequentially at its write pointer (or by Zone Append); IOs
//     go round-robin over them (write) or to one drawn at random
//     (randwrite, as fio's zbd mode picks among its open zones). A zone
//     written to its capacity is replaced by the range's next one. A zone
//     the drive refuses (e.g. Too Many Active Zones) is dropped, and the
//     host writes fewer zones from then on: the errors show the limit.
//   zone_reset: one Zone Management Send (reset) per zone of the range.
//   zone_log: a log-structured store over the range's zones (an LSM tree's
//     or a log-structured file system's data path). `logical` bytes of
//     objects of `bs` are overwritten at random; writes go to the log's
//     `open_zones` head zones in turn. When `gc_free_zones` or fewer zones
//     are free, the host's garbage collection reads the valid objects of
//     the full zone with fewest, writes them at the heads and resets that
//     zone. User writes keep one free zone for the collection's copies.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/host_command.h"
#include "sim/rng.h"

namespace ssdtwin {

struct PhaseSpec;

// A zoned namespace's layout, as the host reads it from the drive.
struct ZoneLayout {
  std::uint64_t zone_bytes = 0;
  std::uint64_t capacity_bytes = 0;
};

class ZoneWriter {
 public:
  struct Io {
    IoOp op = IoOp::kWrite;
    ZoneAction zone = ZoneAction::kNone;
    std::uint64_t offset = 0;
    std::uint32_t bytes = 0;
    bool user = true;          // zone_log: the user's write (not a GC read or copy)
    std::uint32_t object = 0;  // zone_log: the object a GC read or copy moves
    std::uint64_t from = 0;    // ... and where it was read
  };
  ZoneWriter(const PhaseSpec& spec, const ZoneLayout& layout, Rng& rng);
  // The next command, or false: nothing to issue now (every zone of the
  // range used, or the log waits for its collection's reads or reset).
  bool next(Io& io);
  // A command the drive completed: `offset` is where the data went (an
  // append's LBA), `failed` when its status was an error.
  void completed(const Io& io, std::uint64_t offset, bool failed);

  std::uint64_t gc_bytes() const { return gc_bytes_; }
  std::uint64_t zone_resets() const { return resets_; }

 private:
  enum class Mode : std::uint8_t { kWrite, kReset, kLog };
  std::uint32_t zone_of(std::uint64_t offset) const {
    return static_cast<std::uint32_t>((offset - first_) / zone_bytes_);
  }
  std::uint64_t zone_start(std::uint32_t z) const {
    return first_ + std::uint64_t{z} * zone_bytes_;
  }
  bool next_write(Io& io);
  bool next_log(Io& io);
  // Picks the head the next write goes to (`user`: a new head may not take
  // the last free zone); false when none can take it.
  bool log_pick_head(bool user);
  void log_start_gc();
  void log_place(std::uint32_t object);

  const PhaseSpec& spec_;
  Rng& rng_;
  Mode mode_;
  std::uint64_t zone_bytes_, capacity_;
  std::uint64_t first_;          // the range's first zone start, bytes
  std::uint32_t zones_;          // whole zones in the range
  std::uint32_t next_zone_ = 0;  // next zone of the range not used yet
  bool random_ = false, append_ = false;
  // write: the zones open and the host's write pointer of each (bytes
  // issued to it); how many zones the host keeps open.
  std::vector<std::uint32_t> open_;
  std::vector<std::uint64_t> wp_;
  std::uint32_t want_open_ = 1;
  std::uint32_t rr_ = 0;

  // zone_log state. Objects of bs; a zone holds `slots_` of them.
  static constexpr std::uint64_t kNowhere = ~std::uint64_t{0};
  std::uint32_t slots_ = 0;
  std::vector<std::uint64_t> where_;        // object -> zone * slots_ + slot, or kNowhere
  std::vector<std::uint32_t> slot_object_;  // zone * slots_ + slot -> object
  std::vector<std::uint32_t> valid_;        // objects per zone
  std::vector<std::uint32_t> free_;         // empty zones, in the order they freed
  std::vector<std::uint8_t> full_;          // zone is written to its capacity
  struct Head {
    std::uint32_t zone, slot;
  };
  std::vector<Head> heads_;                 // the log's open zones, written in turn
  std::uint32_t next_head_ = 0, head_ = 0;  // head_: the one picked
  std::uint32_t gc_free_ = 2;
  // The collection under way: its victim, the next slot to look at, reads
  // out, reads done waiting for their copy's write (object, where it was
  // read), copies out, and whether the victim's reset is out.
  bool gc_ = false, resetting_ = false;
  std::uint32_t victim_ = 0, gc_slot_ = 0, gc_reads_ = 0, gc_writes_ = 0;
  struct Copy {
    std::uint32_t object;
    std::uint64_t from;
  };
  std::vector<Copy> copies_;
  std::uint64_t gc_bytes_ = 0, resets_ = 0;
};

}  // namespace ssdtwin
