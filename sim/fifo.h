// A first-in first-out queue over one vector with a head index: pushes
// append, pops advance the head, and the consumed front is dropped once it
// is most of the vector, so memory follows what is waiting rather than
// everything that ever passed. Used for the host's waiting arrivals and the
// controller's writes waiting for buffer space.
#pragma once

#include <cstddef>
#include <vector>

namespace ssdtwin {

template <class T>
class Fifo {
 public:
  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  const T& front() const { return items_[head_]; }
  const T& back() const { return items_.back(); }
  void push(const T& v) { items_.push_back(v); }
  T pop() {
    const T v = items_[head_++];
    if (head_ == items_.size()) {
      clear();
    } else if (head_ > kCompactAfter && 2 * head_ > items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return v;
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  static constexpr std::size_t kCompactAfter = 1024;
  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace ssdtwin
