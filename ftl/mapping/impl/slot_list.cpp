#include "ftl/mapping/impl/slot_list.h"

#include "sim/state_archive.h"

namespace ssdtwin {

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void SlotList::archive(StateArchive& ar) {
  // Stored as two arrays (the layout of earlier builds' snapshots).
  std::vector<std::uint32_t> prev(links_.size()), next(links_.size());
  for (std::size_t i = 0; i < links_.size(); ++i)
    prev[i] = down(links_[i].prev), next[i] = down(links_[i].next);
  ar.vec(prev, true);
  ar.vec(next, true);
  ar.pods(head_, tail_);
  if (!ar.loading()) return;
  for (std::size_t i = 0; i < links_.size(); ++i) links_[i] = Links{up(prev[i]), up(next[i])};
}

}  // namespace ssdtwin
