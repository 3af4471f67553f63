// FIFO eviction of map-cache segments: the segment loaded first goes,
// however often it is used (a baseline for LRU).
#include "ftl/mapping/impl/map_evictions.h"
#include "ftl/mapping/impl/slot_list.h"

namespace ssdtwin {

namespace {

class FifoEviction final : public MapEvictionPolicy {
 public:
  explicit FifoEviction(std::uint32_t slots) : list_(slots) {}
  void inserted(std::uint32_t s) override { list_.push_front(s); }
  void hit(std::uint32_t) override {}
  void removed(std::uint32_t s) override { list_.remove(s); }
  void replaced(std::uint32_t s) override { list_.move_to_front(s); }
  std::uint32_t victim() const override { return list_.back(); }
  std::uint32_t after(std::uint32_t s) const override { return list_.before(s); }
  void prefetch(std::uint32_t s) const override { list_.prefetch(s); }
  void archive(StateArchive& ar) override { list_.archive(ar); }

 private:
  SlotList list_;
};

}  // namespace

std::unique_ptr<MapEvictionPolicy> make_fifo_eviction(std::uint32_t slots) {
  return std::make_unique<FifoEviction>(slots);
}

}  // namespace ssdtwin
