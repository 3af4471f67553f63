#include "sim/event_engine.h"

#include <cassert>
#include <stdexcept>

namespace ssdtwin {

void EventEngine::schedule_at(Tick at, EventTarget* target, std::uint32_t kind,
                              std::uint64_t arg) {
  if (at < now_) throw std::logic_error("event scheduled in the past");
  heap_.push_back(Event{at, seq_++, target, arg, kind});
  sift_up(heap_.size() - 1);
}

bool EventEngine::step() {
  if (heap_.empty()) return false;
  const Event ev = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  now_ = ev.time;
  ++executed_;
  ev.target->on_event(ev.kind, ev.arg);
  return true;
}

void EventEngine::sift_up(std::size_t i) {
  const Event ev = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!later(heap_[parent], ev)) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = ev;
}

void EventEngine::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  const Event ev = heap_[i];
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && later(heap_[child], heap_[child + 1])) ++child;
    if (!later(ev, heap_[child])) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = ev;
}

}  // namespace ssdtwin
