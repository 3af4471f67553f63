#include "ftl/write_buffer.h"

#include <stdexcept>

namespace ssdtwin {

WriteBuffer::WriteBuffer(std::uint32_t capacity_slots, std::uint32_t headroom, bool keep_versions)
    : capacity_(capacity_slots), ring_(capacity_slots + headroom), owners_(ring_) {
  if (capacity_slots == 0) throw std::invalid_argument("write buffer of zero slots");
  if (keep_versions) versions_.resize(ring_);
}

std::uint32_t WriteBuffer::push(Owner owner, std::uint32_t version) {
  // A ring of `capacity` entries never overflows: every waiting entry holds
  // one reserved slot of capacity.
  if (count_ == ring_) throw std::logic_error("write buffer ring overflow");
  std::uint32_t tail = head_ + count_;
  if (tail >= ring_) tail -= ring_;
  owners_[tail] = owner;
  if (!versions_.empty()) versions_[tail] = version;
  ++count_;
  ++valid_;
  return kBufferBase + tail;
}

}  // namespace ssdtwin
