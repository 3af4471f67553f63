#include "sim/event_engine.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace ssdtwin {

namespace {
// Room for this many pending events before the first growth: the drives'
// working sets stay far below it.
constexpr std::size_t kInitialCapacity = 1 << 12;
}  // namespace

EventEngine::EventEngine() {
  pool_.reserve(kInitialCapacity);
  grow_heap();
}

Tick EventEngine::next_time() const {
  if (!hole_) return time_of(heap_[0]);
  // Inside a handler whose root is still empty: the earliest pending event
  // is the smallest of the root's children (the padding is kEmpty).
  return time_of(*std::min_element(heap_ + 1, heap_ + 1 + kArity));
}

void EventEngine::schedule_at(Tick at, EventTarget* target, std::uint32_t kind,
                              std::uint64_t arg) {
  if (at < now_) throw std::logic_error("event scheduled in the past");
  std::uint32_t slot = free_slot_;
  if (slot != kNoSlot) {
    free_slot_ = static_cast<std::uint32_t>(pool_[slot].arg);
  } else {
    slot = new_slot();
  }
  pool_[slot] = Payload{target, arg, kind};
  const Key key = (Key{at} << 64) | (Key{seq_} << 32) | slot;
  if (hole_) {
    hole_ = false;
    sift_down_from_root(key);
  } else {
    if (size_ == capacity_) grow_heap();
    sift_up(size_++, key);
  }
  if (++seq_ == 0) renumber();
}

bool EventEngine::step() {
  if (hole_) close_hole();  // step() re-entered from a handler
  if (size_ == 0) return false;
  const Key top = heap_[0];
  const std::uint32_t slot = slot_of(top);
  const Payload ev = pool_[slot];
  pool_[slot].arg = free_slot_;
  free_slot_ = slot;
  hole_ = true;
  now_ = time_of(top);
  ++executed_;
  ev.target->on_event(ev.kind, ev.arg);
  if (hole_) close_hole();
  return true;
}

std::uint32_t EventEngine::new_slot() {
  // Slot 2^32 - 1 (kNoSlot) is never handed out, so no real key equals kEmpty.
  if (pool_.size() >= kNoSlot) throw std::length_error("EventEngine: too many pending events");
  pool_.emplace_back();
  return static_cast<std::uint32_t>(pool_.size() - 1);
}

void EventEngine::grow_heap() {
  const std::size_t capacity = capacity_ == 0 ? kInitialCapacity : 2 * capacity_;
  // kPad cells of kEmpty past the last key, and up to kArity - 1 more in
  // front to line the sibling pairs up on 32-byte boundaries.
  std::vector<Key> storage(capacity + kPad + kArity - 1, kEmpty);
  const auto addr = reinterpret_cast<std::uintptr_t>(storage.data() + 1);
  const std::size_t misalign = (addr % (kArity * sizeof(Key))) / sizeof(Key);
  Key* heap = storage.data() + (misalign == 0 ? 0 : kArity - misalign);
  std::copy(heap_, heap_ + size_, heap);
  storage_.swap(storage);
  heap_ = heap;
  capacity_ = capacity;
}

void EventEngine::sift_up(std::size_t i, Key key) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (heap_[parent] < key) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = key;
}

void EventEngine::sift_down_from_root(Key key) {
  std::size_t i = 0;
  for (;;) {
    const std::size_t c = kArity * i + 1;
    if (c >= size_) break;
    // The smaller child by flag arithmetic (one 128-bit compare), not a
    // branch: which child is smaller is a coin toss the predictor loses.
    const std::size_t m = c + (heap_[c + 1] < heap_[c]);
    if (key < heap_[m]) break;
    heap_[i] = heap_[m];
    i = m;
  }
  heap_[i] = key;
}

void EventEngine::close_hole() {
  hole_ = false;
  --size_;
  const Key last = heap_[size_];
  heap_[size_] = kEmpty;
  if (size_ > 0) sift_down_from_root(last);
}

void EventEngine::renumber() {
  if (hole_) close_hole();
  // A sorted array is a valid heap, and numbering the pending events 0..n-1
  // in that order keeps every tie broken as before; later events get n on.
  std::sort(heap_, heap_ + size_);
  constexpr Key kSeqBits = Key{UINT32_MAX} << 32;
  for (std::size_t i = 0; i < size_; ++i) heap_[i] = (heap_[i] & ~kSeqBits) | (Key{i} << 32);
  seq_ = static_cast<std::uint32_t>(size_);
}

}  // namespace ssdtwin
