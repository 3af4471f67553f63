// Workload faults (workload.faults.fail_block and fail_die): a block or a
// whole die stops working at a set time. The injector holds the events and
// marks what fails in the FTL's state (flags, offline dies, counters); what
// is to be done about the data is its listener's (the FTL's): relocate a
// failed block's pages, rebuild a die's across the others.
#pragma once

#include <cstdint>

#include "ftl/ftl_core.h"
#include "ftl/recovery/read_recovery.h"
#include "sim/event_engine.h"

namespace ssdtwin {

class FaultInjector final : public EventTarget {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    // A block in use failed (marked failed and to retire, closed early):
    // move what can still be read.
    virtual void block_failed(std::uint32_t die, std::uint32_t block) = 0;
    // A die failed (every block marked, no host data goes there).
    virtual void die_failed(std::uint32_t die) = 0;
  };

  FaultInjector(FtlCore& core, ReadRecovery& recovery, Listener& listener)
      : core_(core), recovery_(recovery), listener_(listener) {}

  // `block` of `die` stops working at `at` (past times: now). A die-block
  // past the geometry is a logic error (workloads are checked first).
  void fail_block_at(Tick at, std::uint32_t die, std::uint32_t block);
  // A whole die stops working at `at`.
  void fail_die_at(Tick at, std::uint32_t die);

  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 private:
  enum Kind : std::uint32_t { kBlockFails, kDieFails };
  FtlCore& core_;
  ReadRecovery& recovery_;
  Listener& listener_;
};

}  // namespace ssdtwin
