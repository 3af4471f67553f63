// NVMe FDP's placement state (ftl.fdp): which write stream each reclaim unit
// handle writes into and where GC moves each stream's data (fixed by the
// config), and what the statistics log needs to count writes by handle
// (volatile: held in controller memory, so a snapshot saves it and a power
// cut loses it). Empty without FDP.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/address.h"
#include "ftl/ftl_stats.h"
#include "ftl/streams.h"
#include "ftl/translation.h"
#include "sim/state_archive.h"

namespace ssdtwin {

class FdpPlacement {
 public:
  // Adds each handle's host stream and, for a persistently isolated one,
  // its own GC stream to `streams` (handle 0 writes the default host stream,
  // so a drive with one handle writes as without FDP).
  // `persistent`: per handle, whether it is persistently isolated.
  void configure(const std::vector<bool>& persistent, std::uint64_t reclaim_unit_slots,
                 std::uint64_t pages, std::uint32_t dies, std::uint32_t die_blocks,
                 StreamTable& streams);
  bool enabled() const { return !handle_.empty(); }
  // [fixed] The stream handle `h`'s host data is written into.
  Stream host_stream(PlacementHandle h) const {
    return host_stream_.empty() ? Stream::kHost : host_stream_[h];
  }
  // [fixed] The stream GC moves data of blocks written by `from` into.
  Stream gc_dest(Stream from) const {
    return gc_dest_.empty() ? Stream::kGc : gc_dest_[from.index()];
  }
  // Streams a fast writer keeps write points for: one per handle (at least one).
  std::size_t host_streams() const { return host_stream_.empty() ? 1 : host_stream_.size(); }

  // [volatile] The handle whose data logical page `lpn` holds.
  PlacementHandle handle_of(Lpn lpn) const { return handle_[lpn]; }

  // A host write of `lpn` under handle `h`.
  void note_host(Lpn lpn, PlacementHandle h, FtlStats& stats) {
    handle_.set(lpn, h);
    ++stats.fdp_host_slots[h];
    // A write into a full reclaim unit moves its handle to a fresh one.
    if (++ru_written_[h] == reclaim_unit_slots_) {
      ru_written_[h] = 0;
      ++stats.fdp_ru_filled[h];
    }
  }
  // `lpn`'s host data was programmed into erase unit `die_block`.
  void note_host_placed(Lpn lpn, std::uint32_t die_block, FtlStats& stats) {
    const PlacementHandle h = handle_[lpn];
    ++stats.fdp_media_slots[h];
    note_unit_holds(die_block, h);
  }
  // GC moved `lpn` from erase unit `from` of `from_die` into `to`: moved in
  // part because of other handles' invalidations when `from` also held
  // their data (the noisy reclaim unit handle).
  void note_moved(Lpn lpn, std::uint32_t from_die, std::uint32_t from, std::uint32_t to,
                  FtlStats& stats) {
    const PlacementHandle h = handle_[lpn];
    ++stats.fdp_media_slots[h];
    ++stats.fdp_moved_slots[h];
    if ((block_handles_[from] & ~(1u << h)) != 0) ++stats.fdp_moved_shared_slots[h];
    note_unit_holds(to, h);
    victim_handles_[from_die] |= static_cast<std::uint16_t>(1u << h);
  }
  // The victim GC was collecting on `die` (erase unit `die_block`) is
  // erased: each handle whose data it moved out is a Media Reallocated event.
  void note_victim_erased(std::uint32_t die, std::uint32_t die_block, FtlStats& stats) {
    if (victim_handles_.empty()) return;
    for (std::uint16_t m = victim_handles_[die]; m != 0; m &= static_cast<std::uint16_t>(m - 1))
      ++stats.fdp_media_reallocated[__builtin_ctz(m)];
    victim_handles_[die] = 0;
    block_handles_[die_block] = 0;
  }
  // Power-loss recovery reopens every write point: each handle whose
  // reclaim unit was partly written now references a fresh one (the
  // Reclaim Unit Not Fully Written event).
  void note_write_points_reopened(FtlStats& stats) {
    for (std::size_t h = 0; h < ru_written_.size(); ++h) {
      if (ru_written_[h] == 0) continue;
      ++stats.fdp_ru_not_fully_written[h];
      ru_written_[h] = 0;
    }
  }
  // Drive-state snapshots: the volatile part (the fixed part follows from
  // the config the snapshot is checked against).
  void archive(StateArchive& ar);

 private:
  void note_unit_holds(std::uint32_t die_block, PlacementHandle h) {
    block_handles_[die_block] |= static_cast<std::uint16_t>(1u << h);
  }
  // Four bits a page (16 handles at most): half a byte per 4 KiB, as the
  // memory goal (2 MiB per GiB of flash) leaves room for on a 4 TB drive.
  class HandleMap {
   public:
    void assign(std::uint64_t pages) { nibbles_.assign((pages + 1) / 2, 0); }
    bool empty() const { return nibbles_.empty(); }
    PlacementHandle operator[](Lpn lpn) const {
      return static_cast<PlacementHandle>((nibbles_[lpn >> 1] >> ((lpn & 1) * 4)) & 0xF);
    }
    void set(Lpn lpn, PlacementHandle h) {
      std::uint8_t& b = nibbles_[lpn >> 1];
      const unsigned shift = (lpn & 1) * 4;
      b = static_cast<std::uint8_t>((b & ~(0xFu << shift)) | ((h & 0xFu) << shift));
    }
    std::vector<std::uint8_t>& nibbles() { return nibbles_; }

   private:
    std::vector<std::uint8_t> nibbles_;
  };

  // fixed
  std::uint64_t reclaim_unit_slots_ = 0;
  std::vector<Stream> host_stream_;  // per handle
  std::vector<Stream> gc_dest_;      // per stream id
  // volatile
  HandleMap handle_;                       // per logical page
  std::vector<std::uint64_t> ru_written_;  // per handle: slots in its current reclaim unit
  // Per erase unit (die-block), the handles whose data were programmed into
  // it since its erase (a bit per handle).
  std::vector<std::uint16_t> block_handles_;
  // Per die, the handles whose data GC has moved out of the victim being
  // collected (a bit per handle).
  std::vector<std::uint16_t> victim_handles_;
};

}  // namespace ssdtwin
