#include "ftl/write_buffer.h"

#include <stdexcept>

namespace ssdtwin {

WriteBuffer::WriteBuffer(std::uint32_t capacity_slots, bool keep_versions)
    : capacity_(capacity_slots), lpns_(capacity_slots) {
  if (capacity_slots == 0) throw std::invalid_argument("write buffer of zero slots");
  if (keep_versions) versions_.resize(capacity_slots);
}

std::uint32_t WriteBuffer::push(Lpn lpn, std::uint32_t version) {
  // A ring of `capacity` entries never overflows: every waiting entry holds
  // one reserved slot of capacity.
  if (count_ == capacity_) throw std::logic_error("write buffer ring overflow");
  std::uint32_t tail = head_ + count_;
  if (tail >= capacity_) tail -= capacity_;
  lpns_[tail] = lpn;
  if (!versions_.empty()) versions_[tail] = version;
  ++count_;
  ++valid_;
  return kBufferBase + tail;
}

}  // namespace ssdtwin
