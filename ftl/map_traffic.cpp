#include "ftl/map_traffic.h"

namespace ssdtwin {

bool MapTraffic::ready_for_read(std::uint32_t seg, std::uint64_t cmd, Lpn first,
                                std::uint32_t count) {
  if (core_.map_cache.lookup(seg)) {
    ++core_.stats.map_hits;
    return true;
  }
  ++core_.stats.map_misses;
  if (load(seg, false)) return true;
  loads_.wait(seg, cmd, first, count);  // behind the segment's load
  return false;
}

bool MapTraffic::load(std::uint32_t seg, bool dirty) {
  if (loads_.joined(seg, dirty)) return false;
  const std::uint32_t where = core_.map.location(kMapOwner | core_.map_cache.tpage_of_segment(seg));
  // A translation page never written holds no mappings; one still in the
  // write buffer or being programmed is in controller memory.
  if (!is_flash(where) || !core_.programmed(where)) {
    ++core_.stats.map_memory_loads;
    insert(seg, dirty);
    return true;
  }
  loads_.start(seg, dirty);
  ++core_.stats.map_reads;
  FlashTxn* t = core_.read_txn(TxnSource::kMapping, where, core_.cfg.map.segment_bytes, seg);
  // A map update (a write, a GC move) loads it dirty; a host read's lookup clean.
  t->for_host_read = !dirty;
  core_.nand.submit(t);
  return false;
}

void MapTraffic::insert(std::uint32_t seg, bool dirty) {
  MapCache& mc = core_.map_cache;
  const MapCache::Evicted ev = mc.insert(seg, dirty);
  if (ev.seg != MapCache::kNone && ev.dirty) writeback(mc.tpage_of_segment(ev.seg));
}

void MapTraffic::writeback(std::uint32_t tpage) {
  ++core_.stats.map_writebacks;
  MapCache& mc = core_.map_cache;
  mc.clean_tpage(tpage);
  const std::uint32_t where = core_.map.location(kMapOwner | tpage);
  // Segments of the page that are not cached must come from its flash copy.
  if (mc.segments_per_tpage() > 1 && is_flash(where) && core_.programmed(where) &&
      !mc.tpage_fully_resident(tpage)) {
    ++core_.stats.map_merge_reads;
    core_.nand.submit(core_.read_txn(TxnSource::kMapping, where, MapCacheConfig::kTpageBytes,
                                     kMergeRead | tpage));
    return;
  }
  client_.write_tpage(tpage);
}

void MapTraffic::on_read_done(std::uint64_t owner) {
  if (owner & kMergeRead) {
    client_.write_tpage(static_cast<std::uint32_t>(owner & ~kMergeRead));
    return;
  }
  const auto seg = static_cast<std::uint32_t>(owner);
  loads_.finish(
      seg, [&](bool dirty) { insert(seg, dirty); },
      [&](std::uint64_t cmd, Lpn first, std::uint32_t count) {
        client_.resume_read(cmd, first, count);
      });
}

}  // namespace ssdtwin
