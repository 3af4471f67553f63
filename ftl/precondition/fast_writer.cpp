#include "ftl/precondition/fast_writer.h"

#include <algorithm>
#include <stdexcept>

#include "ftl/gc/relocation_engine.h"

namespace ssdtwin {

FastWriter::FastWriter(FtlCore& core, RelocationEngine& engine)
    : core_(core),
      engine_(engine),
      streams_(core.blocks.streams().size()),
      host_(std::size_t{core.geo.dies()} * core.fdp.host_streams()),
      moves_(streams_ * core.geo.dies()),
      scans_(core.geo.dies()),
      die_(core.fdp.host_streams(), 0) {}

void FastWriter::drain() {
  while (queued_ > 0) apply_oldest();
}

void FastWriter::write_counted(Rng& rng) {
  if (queued_ > 0) throw std::logic_error("fast preconditioning: counted writes after exact ones");
  counted_ = true;
  ++core_.stats.host_write_slots;
  ++core_.stats.host_native_slots;
  // The overwritten page's block, by rejection: a block drawn uniformly is
  // kept with probability valid / (the most a block holds). Blocks are
  // about as full as the drive (user / raw), so it takes about one draw.
  const std::uint64_t blocks = std::uint64_t{core_.geo.dies()} * core_.blocks.blocks_per_die();
  const std::uint64_t most = core_.layout.slots_per_block();
  for (;;) {
    const std::uint64_t r = rng.below(blocks);
    const auto die = static_cast<std::uint32_t>(r / core_.blocks.blocks_per_die());
    const auto block = static_cast<std::uint32_t>(r % core_.blocks.blocks_per_die());
    if (rng.below(most) < core_.blocks.info(die, block).valid) {
      core_.invalidate(core_.layout.first_slot(core_.layout.die_block(die, block), 0));
      break;
    }
  }
  core_.place(core_.blocks.info_of(next_host_slot()));
}

void FastWriter::write_tpage(Owner o) {
  const Ppa p = next_host_slot();
  core_.map.place(o, p);
  core_.place(core_.blocks.info_of(p));
}

Ppa FastWriter::turn_host_slot(PlacementHandle h) {
  // Host data rotates over the dies one program unit at a time, as the
  // timed flush does.
  std::uint32_t& die = die_[h];
  OpenUnit& u = host_[std::size_t{h} * core_.geo.dies() + die];
  const Ppa p = next_slot(die, core_.fdp.host_stream(h), u);
  if (!u.open) die = (die + 1) % core_.geo.dies();
  return p;
}

void FastWriter::apply(Lpn lpn, PlacementHandle handle) {
  ++core_.stats.host_write_slots;
  ++core_.stats.host_native_slots;
  const std::uint32_t old = core_.map.lookup(lpn);
  // Unmap the old copy first, so that collection below does not move it.
  if (is_flash(old)) {
    core_.invalidate(old);
    core_.map.set(lpn, kUnmapped);
  } else if (old == kUnmapped) {
    ++core_.mapped_pages;
  } else {
    throw std::logic_error("fast write with data in the write buffer");
  }
  if (core_.fdp.enabled()) core_.fdp.note_host(lpn, handle, core_.stats);
  const Ppa p = next_host_slot(handle);
  core_.map.place(lpn, p);
  core_.note_host_placed(lpn, p);
  core_.place(core_.blocks.info_of(p));
  if (core_.verifier.enabled()) core_.verifier.set_slot(p, core_.verifier.on_write(lpn));
}

Ppa FastWriter::take_slots(std::uint32_t die, Stream stream, OpenUnit& u, std::uint32_t want,
                           std::uint32_t& got) {
  // Parity units take no time here: programmed as soon as allocated.
  const auto programmed = [&](const ProgramUnit& p) {
    core_.blocks.on_programmed(die, p.block, p.pages);
  };
  if (!u.open) {
    if (core_.blocks.streams().role(stream) == StreamRole::kHost) {
      collect(die, core_.unit_slots);
      if (engine_.group_width()) make_room(die);
    }
    const auto unit = core_.allocate_data(die, stream, core_.pages_per_program, core_.native,
                                          PoolKind::kNormal, programmed);
    if (!unit) throw std::logic_error("fast preconditioning: no erased block on die");
    u.unit = *unit;
    u.used = 0;
    u.open = true;
  }
  const Ppa p = u.unit.first + u.used;
  got = std::min(want, u.unit.slots - u.used);
  u.used += got;
  if (u.used == u.unit.slots) {
    close(u);
    core_.take_due_parity(u.unit, stream, core_.native, PoolKind::kNormal, programmed);
  }
  return p;
}

void FastWriter::close(OpenUnit& u) {
  if (!u.open) return;
  for (std::uint32_t k = u.used; k < u.unit.slots; ++k) core_.map.clear_owner(u.unit.first + k);
  core_.stats.flush_padding_slots += u.unit.slots - u.used;
  core_.blocks.on_programmed(u.unit.die, u.unit.block, u.unit.pages);
  u.open = false;
}

void FastWriter::finish() {
  drain();
  // A victim half collected is finished, as the timed GC would finish it.
  for (std::uint32_t d = 0; d < core_.geo.dies(); ++d) {
    if (!engine_.collecting(d)) continue;
    const Scan& g = scan(d);
    relocate_some(d, g.end - g.next, 0);
  }
  for (auto& u : host_) close(u);
  for (auto& u : moves_) close(u);
}

FastWriter::Scan& FastWriter::scan(std::uint32_t die) {
  Scan& g = scans_[die];
  const std::uint32_t v = engine_.victim(die).block;
  if (g.block != v) {
    g.block = v;
    g.next = core_.layout.first_slot(core_.layout.die_block(die, v), 0);
    g.end = g.next + static_cast<Ppa>(core_.blocks.capacity_slots(core_.blocks.info(die, v)));
    g.scanned = 0;
  }
  return g;
}

void FastWriter::collect(std::uint32_t die, std::uint32_t unit_slots) {
  using Step = RelocationEngine::HostStep;
  for (;;) {
    const Step step = engine_.before_host(die, unit_slots);
    if (step == Step::kProgram) return;
    const Scan& g = scan(die);
    if (step == Step::kCollectBeside) {
      relocate_some(die, unit_slots, 0);
      return;
    }
    if (step == Step::kFinishVictim) {
      relocate_some(die, g.end - g.next, 0);
      continue;
    }
    relocate_some(die, g.end - g.next, unit_slots);
    // The victim done and its credit still short: the next victim earns on.
    // Else it cannot earn more (the bound on credit): take the reserve.
    if (engine_.collecting(die) && !engine_.pacing().covers(die, unit_slots)) return;
  }
}

void FastWriter::make_room(std::uint32_t die) {
  using Sources = RelocationEngine::Sources;
  const std::uint32_t width = engine_.group_width();
  const std::uint32_t first = die / width * width;
  while (!core_.blocks.can_allocate(die, Stream::kHost, core_.pages_per_program)) {
    // The group's pool waits for members to erase the victims chosen: they
    // finish them now, as their timed GC would while this die waits.
    bool erased = false;
    for (std::uint32_t d = first; d < first + width; ++d) {
      if (core_.durable.die_offline[d]) continue;
      while (engine_.collecting(d) || engine_.start(d, 0, Sources::kNative, false)) {
        const Scan& g = scan(d);
        relocate_some(d, g.end - g.next, 0);
        erased = true;
      }
    }
    // None chosen: the die chooses one, short of erased blocks it can use.
    if (!erased && !engine_.start(die, core_.blocks.free_blocks(die) + 1, Sources::kNative, false))
      return;
  }
}

void FastWriter::relocate_some(std::uint32_t die, std::uint32_t slots, double need) {
  if (counted_) {
    relocate_counted(die, slots, need);
    return;
  }
  Scan& g = scan(die);
  const Stream dest = engine_.victim(die).dest;
  OpenUnit& u = move_unit(die, dest);
  const GcPacing& pacing = engine_.pacing();
  const Ppa stop = g.next + std::min<Ppa>(slots, g.end - g.next);
  constexpr Ppa kAhead = 16;  // slots whose map entries load while this one moves
  while (g.next < stop && (need == 0 || !pacing.covers(die, static_cast<std::uint32_t>(need)))) {
    if (g.next + kAhead < g.end) core_.map.prefetch_owner(g.next + kAhead);
    const Ppa s = g.next++;
    if (!core_.map.valid(s)) continue;
    const Owner o = core_.map.owner(s);
    const Ppa to = next_slot(die, dest, u);
    core_.relocate(o, s, to, core_.blocks.info_of(to));
    engine_.moved(die, 1);
  }
  if (g.next < g.end) return;
  engine_.erased(die, engine_.read_out(die));
  g.block = kNoBlock;
}

void FastWriter::relocate_counted(std::uint32_t die, std::uint32_t slots, double need) {
  Scan& g = scan(die);
  const Stream dest = engine_.victim(die).dest;
  OpenUnit& u = move_unit(die, dest);
  const GcPacing& pacing = engine_.pacing();
  BlockInfo& victim = core_.blocks.info(die, g.block);
  const double capacity = static_cast<double>(g.end - g.next);
  const double stop = std::min(capacity, g.scanned + slots);
  const auto need_slots = static_cast<std::uint32_t>(need);
  // Moves in runs, each up to the destination unit's end. With the valid
  // pages spread evenly, after k of v moves the unscanned part has shrunk
  // by (v - k) / v; the window ends after the k for which it reaches `stop`.
  while (victim.valid > 0 && (need == 0 || !pacing.covers(die, need_slots))) {
    const double v = victim.valid, unscanned = capacity - g.scanned;
    std::uint64_t k = victim.valid;
    if (stop < capacity)
      k = std::min<std::uint64_t>(
          k, static_cast<std::uint64_t>(v * (stop - g.scanned) / unscanned + 1e-9));
    if (need != 0) k = std::min(k, engine_.moves_to_cover(die, need_slots));
    if (k == 0) {
      g.scanned = stop;
      break;
    }
    // k <= victim.valid, a block's slots at most
    for (auto left = static_cast<std::uint32_t>(k); left > 0;) {
      std::uint32_t got = 0;
      const Ppa to = take_slots(die, dest, u, left, got);
      core_.blocks.info_of(to).valid += got;  // every block with data is native (steady_blocker)
      left -= got;
    }
    victim.valid -= static_cast<std::uint32_t>(k);
    g.scanned = capacity - unscanned * (v - static_cast<double>(k)) / v;
    engine_.moved(die, static_cast<std::uint32_t>(k));
  }
  if (victim.valid > 0) return;
  engine_.erased(die, engine_.read_out(die));
  g.block = kNoBlock;
}

}  // namespace ssdtwin
