// Write streams: each is a write point (an open block per die) that one
// kind of data is programmed into, so that data of different lifetimes do
// not share erase units. Streams are data, listed in a StreamTable: each has
// a role (host data in the native mode or in the SLC cache, or data GC
// relocates) and the placement handle it serves. Placement handle 0 (every
// write without placement) has the four streams of the first rows; NVMe FDP
// adds streams per reclaim unit handle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ssdtwin {

// kGcCold: data relocated a second time (it outlived a whole GC cycle:
// cold), kept apart from first-time relocations when ftl.gc.separate_cold
// is set.
enum class StreamRole : std::uint8_t { kHost, kGc, kHostSlc, kGcCold };

struct Stream {
  std::uint8_t id = 0;
  constexpr std::size_t index() const { return id; }
  friend constexpr bool operator==(Stream a, Stream b) { return a.id == b.id; }
  friend constexpr bool operator!=(Stream a, Stream b) { return a.id != b.id; }
  // Placement handle 0's streams, the first rows of every table.
  static const Stream kHost, kGc, kHostSlc, kGcCold;
};
inline constexpr Stream Stream::kHost{0};
inline constexpr Stream Stream::kGc{1};
inline constexpr Stream Stream::kHostSlc{2};
inline constexpr Stream Stream::kGcCold{3};

class StreamTable {
 public:
  StreamTable() {
    add(StreamRole::kHost, 0);
    add(StreamRole::kGc, 0);
    add(StreamRole::kHostSlc, 0);
    add(StreamRole::kGcCold, 0);
  }
  // A new stream; at most 255 (BlockInfo keeps the id in a byte).
  Stream add(StreamRole role, std::uint16_t handle) {
    rows_.push_back(Row{role, handle});
    return Stream{static_cast<std::uint8_t>(rows_.size() - 1)};
  }
  std::size_t size() const { return rows_.size(); }
  StreamRole role(Stream s) const { return rows_[s.id].role; }
  std::uint16_t handle(Stream s) const { return rows_[s.id].handle; }
  bool is_relocation(Stream s) const {
    const StreamRole r = role(s);
    return r == StreamRole::kGc || r == StreamRole::kGcCold;
  }

 private:
  struct Row {
    StreamRole role;
    std::uint16_t handle;
  };
  std::vector<Row> rows_;
};

}  // namespace ssdtwin
