#include "ftl/fdp_placement.h"

namespace ssdtwin {

void FdpPlacement::configure(const std::vector<bool>& persistent, std::uint64_t reclaim_unit_slots,
                             std::uint64_t pages, std::uint32_t dies, std::uint32_t die_blocks,
                             StreamTable& streams) {
  const auto handles = static_cast<std::uint32_t>(persistent.size());
  reclaim_unit_slots_ = reclaim_unit_slots;
  std::vector<Stream> own_gc(handles, Stream::kGc);
  host_stream_.assign(handles, Stream::kHost);
  for (std::uint32_t h = 0; h < handles; ++h) {
    if (h > 0) host_stream_[h] = streams.add(StreamRole::kHost, static_cast<std::uint16_t>(h));
    if (persistent[h]) own_gc[h] = streams.add(StreamRole::kGc, static_cast<std::uint16_t>(h));
  }
  gc_dest_.assign(streams.size(), Stream::kGc);
  for (std::uint32_t h = 0; h < handles; ++h) {
    gc_dest_[host_stream_[h].index()] = own_gc[h];
    gc_dest_[own_gc[h].index()] = own_gc[h];  // (kGc itself when shared)
  }
  handle_.assign(pages);
  ru_written_.assign(handles, 0);
  victim_handles_.assign(dies, 0);
  block_handles_.assign(die_blocks, 0);
}

void FdpPlacement::archive(StateArchive& ar) {
  ar.vec(handle_.nibbles(), true);
  ar.vec(ru_written_, true);
  ar.vec(block_handles_, true);
  ar.vec(victim_handles_, true);
}

}  // namespace ssdtwin
