#include "ftl/recovery/fault_injector.h"

#include <algorithm>
#include <stdexcept>

namespace ssdtwin {

void FaultInjector::fail_die_at(Tick at, std::uint32_t die) {
  if (die >= core_.geo.dies()) throw std::logic_error("fail_die_at: no such die");
  core_.engine.schedule_at(std::max(at, core_.engine.now()), this, kDieFails, die);
}

void FaultInjector::fail_block_at(Tick at, std::uint32_t die, std::uint32_t block) {
  if (die >= core_.geo.dies() || block >= core_.geo.blocks_per_plane)
    throw std::logic_error("fail_block_at: no such block");
  core_.engine.schedule_at(std::max(at, core_.engine.now()), this, kBlockFails,
                           core_.layout.die_block(die, block));
}

void FaultInjector::on_event(std::uint32_t kind, std::uint64_t arg) {
  if (kind == kDieFails) {
    const auto die = static_cast<std::uint32_t>(arg);
    if (core_.durable.die_offline[die]) return;
    core_.durable.die_offline[die] = 1;
    core_.update_flush_ready(die);
    ++core_.stats.failed_dies;
    recovery_.note_failed_block();
    for (std::uint32_t b = 0; b < core_.geo.blocks_per_plane; ++b)
      core_.blocks.info(die, b).flags |= BlockInfo::kFailed;
    core_.blocks.set_die_offline(die);  // super-blocks stop waiting for it
    listener_.die_failed(die);
    return;
  }
  const auto db = static_cast<std::uint32_t>(arg);
  const std::uint32_t die = db / core_.geo.blocks_per_plane,
                      block = db % core_.geo.blocks_per_plane;
  BlockInfo& b = core_.blocks.info(die, block);
  ++core_.stats.failed_blocks;
  recovery_.note_failed_block();
  if (b.state == BlockState::kBad || b.state == BlockState::kSpare) return;
  b.flags |= BlockInfo::kFailed | BlockInfo::kRetire;
  if (b.state == BlockState::kFree) return;  // retired when the pool next hands it out
  core_.blocks.close_early(die, block);
  listener_.block_failed(die, block);
}

}  // namespace ssdtwin
