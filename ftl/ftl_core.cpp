#include "ftl/ftl_core.h"

#include <stdexcept>

#include "sim/state_archive.h"

namespace ssdtwin {

namespace {
// Factory bad blocks: each block independently, at the configured rate,
// drawn from the bad-block stream so that they do not move other choices.
std::vector<std::uint32_t> factory_bad_blocks(const Geometry& geo, const BadBlockConfig& c) {
  std::vector<std::uint32_t> bad;
  if (c.factory_rate <= 0) return bad;
  Rng rng(c.seed);
  for (std::uint32_t db = 0; db < geo.die_blocks(); ++db)
    if (rng.uniform() < c.factory_rate) bad.push_back(db);
  return bad;
}
}  // namespace

FtlCore::FtlCore(EventEngine& e, NandArray& n, const FtlConfig& c, bool verify)
    : FtlFixed(e, n, c),
      FtlVolatile(n.geometry().dies(), c.seed, fault_seed(0)),
      blocks(geo, c.gc_reserved_blocks, c.slc.static_blocks_per_die, c.bad_blocks.reserve_per_die,
             factory_bad_blocks(geo, c.bad_blocks)),
      map(c.user_bytes / kSectorBytes, geo.total_slots(), c.map.entries_per_tpage()),
      map_cache(c.map, c.user_bytes / kSectorBytes),
      verifier(verify, c.user_bytes / kSectorBytes, geo.total_slots()) {
  durable.die_offline.assign(geo.dies(), 0);
  if (c.rain_span_dies) blocks.enable_super_blocks(c.rain_span_dies);
  if (c.fdp.enabled) {
    StreamTable t;
    fdp.configure(c.fdp.persistent, c.fdp.reclaim_unit_slots, c.user_bytes / kSectorBytes,
                  geo.dies(), geo.die_blocks(), t);
    blocks.set_streams(t);
    counts_owners = true;
  }
  if (c.power_loss.checkpoint_every > 0) tpage_dirty.assign((map.tpages() + 63) / 64, 0);
  refresh_flush_ready();
}

FlashTxn* FtlCore::read_txn(TxnSource source, std::uint32_t where, std::uint32_t bytes,
                            std::uint64_t owner) {
  FlashTxn* t = txns.get();
  t->op = TxnOp::kRead;
  t->source = source;
  t->die = layout.die_of(where);
  t->block = layout.block_of(where);
  const BlockInfo& b = blocks.info(t->die, t->block);
  t->mode = b.mode;
  t->page = layout.page_of(where);
  t->bytes = bytes;
  t->owner = owner;
  t->block_erases = b.erase_count;
  return t;
}

FlashTxn* FtlCore::program_txn(const ProgramUnit& u, TxnSource source, CellMode mode) {
  FlashTxn* t = txns.get();
  t->op = TxnOp::kProgram;
  t->source = source;
  t->mode = mode;
  t->die = u.die;
  t->block = u.block;
  t->page = u.page;
  t->pages = u.pages;
  t->bytes = u.slots * kSectorBytes;  // padding crosses the bus too
  return t;
}

ProgramUnit FtlCore::take_parity_unit(std::uint32_t die, Stream stream, std::uint32_t ppp,
                                      CellMode mode, PoolKind pool) {
  // The stripe's last slot is in the open block (rain_due said so), so the
  // allocation cannot fail or move to another block.
  const auto unit = blocks.allocate_unit(die, stream, ppp, mode, pool);
  if (!unit) throw std::logic_error("RAIN parity: stream has no open slot for its stripe's parity");
  mark_parity(*unit);
  return *unit;
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void FtlCore::archive(StateArchive& ar) {
  blocks.archive(ar);
  map.archive(ar);
  map_cache.archive(ar);
  verifier.archive(ar);
  ar.pod(stats);
  FtlVolatile::archive(ar);
  durable.archive(ar);
  fdp.archive(ar);
  if (ar.loading()) refresh_flush_ready();  // derived from host_programs and die_offline
}

}  // namespace ssdtwin
