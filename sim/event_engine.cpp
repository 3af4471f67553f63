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
  std::fill(std::begin(lane_front_), std::end(lane_front_), kEmpty);
  lanes_.reserve(kMaxLanes);
  grow_heap();
}

EventEngine::Lane EventEngine::add_lane() {
  if (lanes_.size() == kMaxLanes) return kNoLane;
  lanes_.emplace_back();
  lanes_.back().ring.assign(16, kEmpty);
  return static_cast<Lane>(lanes_.size() - 1);
}

Tick EventEngine::next_time() const {
  // Inside a handler whose root is still empty, the heap's earliest event
  // is the smaller of the root's children (the padding is kEmpty).
  Key top = hole_ ? *std::min_element(heap_ + 1, heap_ + 1 + kArity) : heap_[0];
  for (std::size_t l = 0; l < lanes_.size(); ++l) top = std::min(top, lane_front_[l]);
  return time_of(top);
}

void EventEngine::schedule_at(Tick at, EventTarget* target, std::uint32_t kind, std::uint64_t arg,
                              Lane lane) {
  if (at < now_) throw std::logic_error("event scheduled in the past");
  std::uint32_t slot = free_slot_;
  if (slot != kNoSlot) {
    free_slot_ = static_cast<std::uint32_t>(pool_[slot].arg);
  } else {
    slot = new_slot();
  }
  pool_[slot] = Payload{target, arg, kind};
  const Key key = (Key{at} << 64) | (Key{seq_} << 32) | slot;
  // The lane's append is written out here, not called: on the host-bound
  // rows nearly every event takes this path, and a call's register saves
  // cost as much as the append itself.
  LaneQueue* q = lane < lanes_.size() ? &lanes_[lane] : nullptr;
  if (q && (q->count == 0 || !(key < q->back))) {
    if (q->count == q->ring.size()) grow_lane(*q);
    q->ring[(q->head + q->count) & (q->ring.size() - 1)] = key;
    if (q->count++ == 0) lane_front_[lane] = key;
    q->back = key;
    ++lane_pending_;
  } else if (hole_) {  // out of order for its lane, or no lane: the heap takes it
    hole_ = false;
    sift_down_from_root(key);
  } else {
    if (size_ == capacity_) grow_heap();
    sift_up(size_++, key);
  }
  if (++seq_ == 0) renumber();
}

void EventEngine::grow_lane(LaneQueue& q) {
  std::vector<Key> ring(2 * q.ring.size(), kEmpty);
  for (std::size_t i = 0; i < q.count; ++i) ring[i] = q.ring[(q.head + i) & (q.ring.size() - 1)];
  q.ring.swap(ring);
  q.head = 0;
}

void EventEngine::pop_lane(Lane lane) {
  LaneQueue& q = lanes_[lane];
  q.head = (q.head + 1) & (q.ring.size() - 1);
  lane_front_[lane] = --q.count > 0 ? q.ring[q.head] : kEmpty;
  --lane_pending_;
}

bool EventEngine::step() {
  if (hole_) close_hole();  // step() re-entered from a handler
  // The earliest of the heap's top (kEmpty when the heap is empty: the
  // padding) and the lanes' fronts.
  Key top = heap_[0];
  Lane from = kNoLane;
  for (std::size_t l = 0; l < lanes_.size(); ++l) {
    if (lane_front_[l] < top) {
      top = lane_front_[l];
      from = static_cast<Lane>(l);
    }
  }
  if (top == kEmpty) return false;
  const std::uint32_t slot = slot_of(top);
  const Payload ev = pool_[slot];
  pool_[slot].arg = free_slot_;
  free_slot_ = slot;
  if (from == kNoLane) {
    hole_ = true;
  } else {
    pop_lane(from);
  }
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
  // Numbering the pending events 0..n-1 in key order keeps every tie
  // broken as before (later events get n on), and a relabelling that keeps
  // the order keeps the heap a heap and each lane sorted.
  std::vector<Key*> keys;
  keys.reserve(pending());
  for (std::size_t i = 0; i < size_; ++i) keys.push_back(&heap_[i]);
  for (LaneQueue& q : lanes_)
    for (std::size_t i = 0; i < q.count; ++i)
      keys.push_back(&q.ring[(q.head + i) & (q.ring.size() - 1)]);
  std::sort(keys.begin(), keys.end(), [](const Key* a, const Key* b) { return *a < *b; });
  constexpr Key kSeqBits = Key{UINT32_MAX} << 32;
  for (std::size_t i = 0; i < keys.size(); ++i) *keys[i] = (*keys[i] & ~kSeqBits) | (Key{i} << 32);
  for (std::size_t l = 0; l < lanes_.size(); ++l) {
    LaneQueue& q = lanes_[l];
    if (q.count == 0) continue;
    lane_front_[l] = q.ring[q.head];
    q.back = q.ring[(q.head + q.count - 1) & (q.ring.size() - 1)];
  }
  seq_ = static_cast<std::uint32_t>(keys.size());
}

}  // namespace ssdtwin
