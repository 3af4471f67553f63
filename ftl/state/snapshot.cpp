// What a drive-state snapshot holds of each FTL component (ftl/state/snapshot.h),
// in one place: a member left out here is state a run from the snapshot
// would not have. Each function serves writing and reading alike.
#include "ftl/state/snapshot.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string_view>
#include <utility>

#include "ftl/controller.h"
#include "ftl/ftl.h"
#include "ftl/gc/garbage_collector.h"
#include "ftl/gc/relocation_engine.h"
#include "ftl/mapping/impl/slot_list.h"
#include "sim/output_file.h"

namespace ssdtwin {

StateArchive::StateArchive(OutputFile& out) : out_(&out), path_(out.path()) {}

StateArchive::StateArchive(std::FILE* in, std::uint64_t bytes, std::string path)
    : in_(in), path_(std::move(path)), total_(bytes) {}

void StateArchive::hash(const void* data, std::size_t bytes) {
  // Word at a time (a byte-wise hash would cost more than the disk read on
  // tables of hundreds of MB); a multiply-xorshift mix per word.
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = sum_;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  sum_ = h;
}

void StateArchive::raw(void* data, std::size_t bytes) {
  if (bytes == 0) return;
  if (loading()) {
    if (bytes > remaining() || std::fread(data, 1, bytes, in_) != bytes) fail_truncated(bytes);
  } else {
    *out_ << std::string_view(static_cast<const char*>(data), bytes);
  }
  done_ += bytes;
  hash(data, bytes);
}

void StateArchive::pod(bool& v) {
  std::uint8_t b = v ? 1 : 0;
  raw(&b, 1);
  if (b > 1) fail("a flag of value " + std::to_string(b) + " (expected 0 or 1)");
  v = b == 1;
}

std::size_t StateArchive::length(std::size_t n, bool fixed) {
  std::uint64_t stored = n;
  pod(stored);
  if (!loading()) return n;
  if (fixed && stored != n)
    fail("a list of " + std::to_string(stored) + " entries where this drive has " +
         std::to_string(n));
  // Every element takes at least a byte: a larger count is damage.
  if (stored > remaining()) fail_truncated(stored);
  return static_cast<std::size_t>(stored);
}

void StateArchive::seal() {
  const std::uint64_t expected = sum_;
  std::uint64_t stored = expected;
  if (loading()) {
    if (sizeof stored > remaining() || std::fread(&stored, 1, sizeof stored, in_) != sizeof stored)
      fail_truncated(sizeof stored);
    if (stored != expected) fail("checksum mismatch: the file is damaged");
  } else {
    *out_ << std::string_view(reinterpret_cast<const char*>(&stored), sizeof stored);
  }
  done_ += sizeof stored;
}

void StateArchive::end() {
  if (loading() && remaining() > 0)
    fail(std::to_string(remaining()) + " bytes after the end of the state (the file has " +
         std::to_string(total_) + ")");
}

void StateArchive::fail(const std::string& what) const {
  throw SnapshotError(path_ + ": snapshot unusable: " + what + " (at byte " +
                      std::to_string(done_) + "); make it again with --save-state");
}

void StateArchive::fail_truncated(std::uint64_t wanted) const {
  fail("truncated: " + std::to_string(wanted) + " more bytes expected, " +
       std::to_string(remaining()) + " left in the file");
}

// --- the components -------------------------------------------------------

void SlotList::archive(StateArchive& ar) {
  // Stored as two arrays (the layout of earlier builds' snapshots).
  std::vector<std::uint32_t> prev(links_.size()), next(links_.size());
  for (std::size_t i = 0; i < links_.size(); ++i)
    prev[i] = down(links_[i].prev), next[i] = down(links_[i].next);
  ar.vec(prev, true);
  ar.vec(next, true);
  ar.pods(head_, tail_);
  if (!ar.loading()) return;
  for (std::size_t i = 0; i < links_.size(); ++i) links_[i] = Links{up(prev[i]), up(next[i])};
}

void MappingTable::archive(StateArchive& ar) {
  ar.array(l2p_);
  ar.array(p2l_);
  ar.array(gtd_);
}

void MapCache::archive(StateArchive& ar) {
  // Per slot only: its segment and dirt (the layout of earlier builds'
  // snapshots). The index and the per-page counts are derived from them
  // (the index's layout depends on the order of past inserts, so storing
  // it would make equal states give different files).
  // Slots never handed out (from fresh_ on) are free, and stored as such.
  std::vector<std::uint32_t> seg_of(slots_.size(), kNone);
  std::vector<std::uint8_t> dirty(slots_.size());
  for (std::size_t i = 0; i < fresh_; ++i) {
    seg_of[i] = slots_[i].seg;
    dirty[i] = slots_[i].seg != kNone && is_dirty(slots_[i]) ? 1 : 0;
  }
  // The free list as earlier builds kept it, a stack taken from the back:
  // the slots never handed out, last first, then those given back.
  std::vector<std::uint32_t> free_list;
  if (!ar.loading()) {
    for (std::uint32_t s = capacity_; s-- > fresh_;) free_list.push_back(s);
    free_list.insert(free_list.end(), free_slots_.begin(), free_slots_.end());
  }
  ar.pod(used_);
  ar.vec(seg_of, true);
  ar.vec(dirty, true);
  ar.vec(free_list);
  if (policy_) policy_->archive(ar);
  if (!ar.loading()) return;
  // Checked before the index is rebuilt from them: a segment in two slots,
  // or a free slot that holds one, would corrupt the cache.
  std::uint32_t held = 0;
  std::vector<std::uint32_t> segs;
  for (const std::uint32_t seg : seg_of) {
    if (seg == kNone) continue;
    if (seg >= segments_) ar.fail("a map-cache segment past the drive's end");
    segs.push_back(seg);
    ++held;
  }
  std::sort(segs.begin(), segs.end());
  if (std::adjacent_find(segs.begin(), segs.end()) != segs.end())
    ar.fail("a map-cache segment in two slots");
  std::vector<std::uint8_t> listed(slots_.size());
  for (const std::uint32_t slot : free_list)
    if (slot >= slots_.size() || seg_of[slot] != kNone || listed[slot]++)
      ar.fail("a map-cache free list naming a slot that is not free");
  if (held != used_ || held + free_list.size() != capacity_)
    ar.fail("a map cache whose slots do not add up");
  for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].seg = seg_of[i];
  fresh_ = capacity_;  // every slot written above: the free list says which to take
  free_slots_ = std::move(free_list);
  rebuild();
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].seg != kNone) set_mark(slots_[i], dirty[i] != 0);
}

void Verifier::archive(StateArchive& ar) {
  ar.vec(expected_, true);
  ar.vec(slot_, true);
  ar.pod(last_);
}

namespace {
void archive_deques(StateArchive& ar, std::vector<std::deque<std::uint32_t>>& qs) {
  for (auto& q : qs) {
    std::vector<std::uint32_t> v(q.begin(), q.end());
    ar.vec(v);
    if (ar.loading()) q.assign(v.begin(), v.end());
  }
}
}  // namespace

void BlockManager::archive(StateArchive& ar) {
  ar.vec(blocks_, true);
  ar.vec(history_, true);
  for (Pool& p : pools_) {
    ar.vec(p.ring, true);
    ar.pods(p.head, p.count);
  }
  ar.vec(write_point_, true);
  ar.vec(dynamic_slc_, true);
  ar.vec(dead_slc_, true);
  ar.vec(spares_, true);
  ar.vec(unreplaced_die_, true);
  ar.pods(closed_seq_, free_total_, bad_total_, unreplaced_);
  if (!sb_.enabled()) return;  // block-spanning stripes: the format is unchanged
  ar.vec(sb_.state, true);
  ar.vec(sb_.members, true);
  for (SuperBlockTable::Pool& p : sb_.pools) {
    ar.vec(p.ring, true);
    ar.pods(p.head, p.count);
  }
  archive_deques(ar, sb_.sequence);
  ar.vec(sb_.base, true);
  ar.vec(sb_.cursor, true);
  ar.vec(offline_, true);
}

void GcPacing::archive(StateArchive& ar) { ar.vec(credit_, true); }

void WriteBuffer::archive(StateArchive& ar) {
  ar.pods(used_, lane_[0].head, count_, valid_);
  for (std::size_t k = 1; k < lane_.size(); ++k) ar.pod(lane_[k].head);
  if (lane_.size() == 1) {
    lane_[0].count = count_;  // a loaded buffer: its one lane is all of it
    lane_[0].valid = valid_;
  }
  ar.vec(owners_, true);
  ar.vec(versions_, true);
}

void GarbageCollector::archive(StateArchive& ar) {
  for (DieGc& g : dies_) {
    ar.pods(g.scan_page, g.reads_in_flight, g.erasing);
    ar.vec(g.read_out);
    ar.vec(g.moves);
    std::uint64_t head = g.head;
    ar.pod(head);
    if (head > g.moves.size()) ar.fail("a relocation queue position past its end");
    g.head = static_cast<std::size_t>(head);
  }
}

void RelocationEngine::archive(StateArchive& ar) {
  // Field by field: the struct's padding would put stray bytes in the file.
  for (Victim& v : victims_) ar.pods(v.block, v.fold, v.credit_per_slot, v.dest);
  for (auto& q : reclaim_) ar.vec(q);
  ar.vec(max_erase_, true);
  ar.vec(wl_erases_, true);
  if (!super_) return;
  archive_deques(ar, group_victims_);
  ar.vec(group_base_, true);
  ar.vec(victim_cursor_, true);
}

void ReadRecovery::archive(StateArchive& ar) {
  // Rebuilds in flight are none at a quiescent point; their free list holds
  // handles only, so a fresh one behaves the same.
  ar.pods(rng_, injected_.rate, failed_blocks_);
  ar.vec(injected_.pages);
}

void FtlCore::archive(StateArchive& ar) {
  blocks.archive(ar);
  map.archive(ar);
  map_cache.archive(ar);
  verifier.archive(ar);
  pacing.archive(ar);
  ar.pods(map_journal_bytes, stats, rng, mapped_pages, slc_valid_slots, host_idle, gc_idle);
  ar.vec(folding, true);
  ar.vec(host_programs, true);
  ar.pods(fault_rng, durable.power_cycles);
  ar.vec(durable.die_offline, true);
  if (ar.loading()) refresh_flush_ready();  // derived from host_programs and die_offline
  ar.vec(durable.poisoned);
  ar.pods(durable.poisoned_pages, durable.program_seq, durable.checkpoint_seq, durable.checkpointed,
          bytes_since_checkpoint);
  ar.vec(tpage_dirty, true);
  ar.vec(dirty_list);
}

void Ftl::archive(StateArchive& ar) {
  if (!quiescent() || fast_ || !loads_.empty())
    throw std::logic_error("drive-state snapshot of an FTL that is not quiescent");
  core_.archive(ar);
  buffer_.archive(ar);
  recovery_.archive(ar);
  relocation_->archive(ar);
  gc_->archive(ar);
  ar.pods(next_die_, flush_need_, last_write_, min_free_seen_, map_unpersisted_);
  if (ar.loading()) starved_.clear();  // rebuilt by the next scans
  // The idle timers pending at the snapshot (sim/timer.h keeps when each
  // fires and the order they were armed in).
  idle_flush_.archive(ar);
  idle_.archive(ar);
  // Map loads, deferred reads and firmware writes are none at a quiescent
  // point (their tables hold handles only).
}

void Ftl::rearm_timers(const StateArchive& ar) {
  const Tick now = core_.engine.now();
  for (const Timer* t : {&idle_flush_, &idle_.timer()})
    if (t->armed() && t->at() < now) ar.fail("an idle timer due before the snapshot's time");
  Timer::rearm({&idle_flush_, &idle_.timer()});
}

void Controller::archive(StateArchive& ar) {
  if (!waiting_.empty() || ops_in_handler_ != 0 || in_data_in_)
    throw std::logic_error("drive-state snapshot of a controller with commands under way");
  ar.vec(cores_.free_at(), true);
  ar.pod(buffer_waits_);
}

}  // namespace ssdtwin
