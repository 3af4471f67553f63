#include "host/host_link.h"

#include <algorithm>

namespace ssdtwin {

Tick HostLink::reserve(Direction dir, std::uint64_t bytes, Tick earliest) {
  const int lane = p_.half_duplex ? 0 : static_cast<int>(dir);
  const Tick start = std::max(earliest, free_at_[lane]);
  // Commands mostly move one size: the last one's duration is kept (two
  // integer divisions for its packets and a floating-point one for its time).
  if (bytes != last_bytes_) {
    last_bytes_ = bytes;
    last_duration_ = duration(bytes);
  }
  const Tick d = last_duration_;
  free_at_[lane] = start + d;
  moved_[static_cast<int>(dir)] += bytes;
  busy_[static_cast<int>(dir)] += d;
  return free_at_[lane];
}

}  // namespace ssdtwin
