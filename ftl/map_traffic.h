// The map cache's traffic with flash. A map update (a host write, a trim, a
// GC move) or a read's lookup that misses loads its segment: from the
// translation page on flash, or from controller memory when that page was
// never written or is still in the write buffer. A dirty segment the cache
// evicts is written back; when its translation page holds segments that are
// not cached, the page's flash copy is read first to merge them. Reads wait
// for the loads they need, in order (MapLoads).
#pragma once

#include <cstdint>

#include "ftl/ftl_core.h"
#include "ftl/mapping/map_loads.h"

namespace ssdtwin {

class MapTraffic final : public MapUpdater {
 public:
  // What the traffic asks of the FTL around it.
  class Client {
   public:
    virtual ~Client() = default;
    // Translation page `tpage` enters the write buffer (a write-back).
    virtual void write_tpage(std::uint32_t tpage) = 0;
    // A read that waited for a load finds its mapping at hand.
    virtual void resume_read(std::uint64_t cmd, Lpn first, std::uint32_t count) = 0;
  };
  MapTraffic(FtlCore& core, Client& client) : core_(core), client_(client) {}

  // `lpn`'s mapping changed: its segment is dirtied, loaded first on a miss.
  void map_update(Lpn lpn) override {
    core_.note_map_change(lpn);
    MapCache& mc = core_.map_cache;
    if (mc.whole_table()) return;
    const std::uint32_t seg = mc.segment_of(lpn);
    if (mc.lookup(seg)) {
      ++core_.stats.map_hits;
      mc.set_dirty(seg);
      return;
    }
    ++core_.stats.map_misses;
    load(seg, true);
  }
  // Host command `cmd`'s read of [first, first+count), all in segment
  // `seg`: true when the mapping is at hand; false when the read waits for
  // the segment's load (resume_read follows).
  bool ready_for_read(std::uint32_t seg, std::uint64_t cmd, Lpn first, std::uint32_t count);
  // A flash read this traffic issued (TxnSource::kMapping, its `owner`) finished.
  void on_read_done(std::uint64_t owner);
  // No load is in flight (and so no read waits).
  bool idle() const { return loads_.empty(); }

 private:
  // Set on a merge read's txn owner (the rest is the translation page).
  static constexpr std::uint64_t kMergeRead = std::uint64_t{1} << 63;
  // Loads `seg` (true when it could be taken in at once).
  bool load(std::uint32_t seg, bool dirty);
  void insert(std::uint32_t seg, bool dirty);
  void writeback(std::uint32_t tpage);

  FtlCore& core_;
  Client& client_;
  MapLoads loads_;  // loads in flight, reads waiting for them
};

}  // namespace ssdtwin
