// The address stream of a workload phase: the op, offset and size of each
// IO, drawn as fio draws them (sequential jobs walk their range, end it
// with a shorter IO when the range is not a multiple of the block size, and
// wrap; random jobs pick whole blocks uniformly in the range; randrw picks
// the op by the read share). The timed generator and fast preconditioning
// both draw from it, so a fast phase writes what its timed run would.
#pragma once

#include <algorithm>
#include <cstdint>

#include "ftl/host_command.h"
#include "host/workload/workload.h"
#include "sim/rng.h"

namespace ssdtwin {

class IoPattern {
 public:
  struct Io {
    IoOp op;
    std::uint64_t offset;
    std::uint32_t bytes;
  };

  IoPattern(const PhaseSpec& spec, Rng& rng)
      : spec_(spec), rng_(rng), blocks_in_span_(spec.span / spec.bs) {}

  Io next() {
    Io io{IoOp::kRead, 0, spec_.bs};
    std::uint64_t blocks = blocks_in_span_;
    if (!spec_.bssplit.empty()) {
      // fio's bssplit: the size by weight; a random IO is aligned to its size.
      const double u = rng_.uniform();
      std::size_t k = 0;
      while (k + 1 < spec_.bssplit.size() && u >= spec_.bssplit[k].cumulative) ++k;
      io.bytes = spec_.bssplit[k].bs;
      blocks = spec_.span / io.bytes;
    }
    bool random = true;
    switch (spec_.rw) {
      case RwKind::kRead: io.op = IoOp::kRead; random = false; break;
      case RwKind::kWrite: io.op = IoOp::kWrite; random = false; break;
      case RwKind::kTrim: io.op = IoOp::kTrim; random = false; break;
      case RwKind::kRandRead: io.op = IoOp::kRead; break;
      case RwKind::kRandWrite: io.op = IoOp::kWrite; break;
      case RwKind::kTrace:  // replays draw from their trace, not from here
        break;
      case RwKind::kRandRw:
        io.op = rng_.uniform() < spec_.read_share ? IoOp::kRead : IoOp::kWrite;
        break;
    }
    if (random) {
      io.offset = spec_.offset + rng_.below(blocks) * io.bytes;
    } else {
      if (next_seq_offset_ >= spec_.span) next_seq_offset_ = 0;
      io.offset = spec_.offset + next_seq_offset_;
      io.bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(io.bytes, spec_.span - next_seq_offset_));
      next_seq_offset_ += io.bytes;
    }
    return io;
  }

 private:
  const PhaseSpec& spec_;
  Rng& rng_;
  std::uint64_t blocks_in_span_;
  std::uint64_t next_seq_offset_ = 0;
};

}  // namespace ssdtwin
