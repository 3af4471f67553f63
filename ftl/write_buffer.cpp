#include "ftl/write_buffer.h"

#include <algorithm>
#include <stdexcept>

#include "sim/state_archive.h"

namespace ssdtwin {

WriteBuffer::WriteBuffer(std::uint32_t capacity_slots, std::uint32_t headroom, bool keep_versions,
                         std::uint32_t lanes)
    : capacity_(capacity_slots),
      ring_(capacity_slots + headroom),
      owners_(std::size_t{capacity_slots + headroom} * lanes),
      lane_(lanes) {
  if (capacity_slots == 0) throw std::invalid_argument("write buffer of zero slots");
  if (lanes == 0) throw std::invalid_argument("write buffer of zero lanes");
  if (keep_versions) versions_.resize(owners_.size());
  if (lanes > 1) seqs_.resize(owners_.size());
}

void WriteBuffer::overflow() { throw std::logic_error("write buffer ring overflow"); }

std::uint64_t WriteBuffer::oldest_waiting(std::uint64_t none) const {
  std::uint64_t oldest = none;
  for (std::uint32_t k = 0; k < lanes(); ++k)
    if (lane_[k].count > 0) oldest = std::min(oldest, front_seq(k));
  return oldest;
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void WriteBuffer::archive(StateArchive& ar) {
  ar.pods(used_, lane_[0].head, count_, valid_);
  for (std::size_t k = 1; k < lane_.size(); ++k) ar.pod(lane_[k].head);
  if (lane_.size() == 1) {
    lane_[0].count = count_;  // a loaded buffer: its one lane is all of it
    lane_[0].valid = valid_;
  }
  ar.vec(owners_, true);
  ar.vec(versions_, true);
}

}  // namespace ssdtwin
