// Counters of the FTL, read by the results writer as deltas per phase.
#pragma once

#include <cstdint>

namespace ssdtwin {

struct FtlStats {
  std::uint64_t host_write_slots = 0;  // 4 KiB pages accepted from the host
  std::uint64_t host_read_slots = 0;
  std::uint64_t trim_slots = 0;
  std::uint64_t read_from_controller = 0;  // reads served from the buffer / unprogrammed pages
  std::uint64_t read_unmapped = 0;         // reads of never-written or trimmed pages
  std::uint64_t host_slc_slots = 0;        // host pages programmed into the SLC cache
  std::uint64_t host_native_slots = 0;     // host pages programmed directly in native mode
  std::uint64_t fold_victims = 0;          // SLC blocks folded
  std::uint64_t fold_moved_slots = 0;      // pages moved from SLC to native mode
  std::uint64_t slc_reclaims = 0;          // SLC blocks erased with no valid data (no fold)
  std::uint64_t flush_units = 0;
  std::uint64_t flush_padding_slots =
      0;                             // slots padded by an idle flush, a host Flush or FUA write
  std::uint64_t gc_victims = 0;      // blocks collected (GC invocations)
  std::uint64_t gc_moved_slots = 0;  // valid pages relocated
  std::uint64_t gc_padding_slots = 0;
  std::uint64_t gc_erases = 0;          // erases by GC and folding
  std::uint64_t rain_parity_units = 0;  // RAIN parity program units
  std::uint64_t wl_victims = 0;         // blocks collected by static wear levelling
  std::uint64_t map_hits = 0;           // map-cache lookups that found their segment
  std::uint64_t map_misses = 0;
  std::uint64_t map_reads = 0;          // translation-page reads from flash
  std::uint64_t map_writebacks = 0;     // translation pages written back
  std::uint64_t map_merge_reads = 0;    // reads of a partly cached page before its write-back
  std::uint64_t map_memory_loads = 0;   // misses served from controller memory (no flash read)
  std::uint64_t map_journal_slots = 0;  // 4 KiB pages of GC map-update journal written
  // Read recovery (ftl/recovery/read_recovery.h), with a NAND error model.
  static constexpr std::size_t kRetryBuckets = 16;
  std::uint64_t retry_reads_by_step[kRetryBuckets] = {};  // re-reads at step s (last: s >= 15)
  std::uint64_t reads_retried = 0;        // reads that needed at least one retry step
  std::uint64_t reads_uncorrectable = 0;  // failed every retry step
  std::uint64_t rain_member_reads = 0;    // reads of stripe members for rebuilds
  std::uint64_t pages_rebuilt = 0;        // uncorrectable die-pages rebuilt from RAIN
  // A failed die's background rebuild (ftl.rain.span: dies): its die-pages
  // holding valid data when it failed; of them, those rebuilt (also in
  // pages_rebuilt), overwritten by the host before their turn, and lost (a
  // stripe without its parity).
  std::uint64_t die_rebuild_pages = 0;
  std::uint64_t die_pages_rebuilt = 0;
  std::uint64_t die_pages_skipped = 0;
  std::uint64_t die_pages_lost = 0;
  std::uint64_t reads_lost = 0;  // uncorrectable and not rebuilt: data lost
  std::uint64_t host_reads_failed =
      0;                               // host reads (flash reads, or 4 KiB pages known lost) failed
  std::uint64_t rewrite_slots = 0;     // pages written again after a rebuild or a failed program
  std::uint64_t reclaim_blocks = 0;    // blocks relocated by read reclaim
  std::uint64_t grown_bad_blocks = 0;  // blocks retired after a failed erase or program
  std::uint64_t program_failures = 0;  // programs that failed (their data written again)
  std::uint64_t failed_blocks = 0;     // blocks a workload fault made fail
  std::uint64_t failed_dies = 0;       // dies a workload fault made fail
  std::uint64_t map_checkpoints = 0;   // map checkpoints taken (ftl.power_loss)
  std::uint64_t checkpoint_tpages = 0;  // translation pages they wrote
  std::uint64_t verify_checks = 0;
  std::uint64_t verify_errors = 0;
  // By namespace (index in the drive's list), with more than one declared:
  // host pages programmed, and pages GC or folding moved (each namespace's
  // share of the media writes; parity, padding and map pages are the drive's).
  static constexpr std::size_t kMaxNamespaces = 16;
  std::uint64_t ns_host_slots[kMaxNamespaces] = {};
  std::uint64_t ns_moved_slots[kMaxNamespaces] = {};
  // NVMe FDP, by reclaim unit handle: host pages written to it, pages of
  // its data programmed (host and GC; the FDP statistics' media bytes per
  // handle), of which GC moves, and reclaim units it filled.
  static constexpr std::size_t kMaxHandles = 16;
  std::uint64_t fdp_host_slots[kMaxHandles] = {};
  std::uint64_t fdp_media_slots[kMaxHandles] = {};
  std::uint64_t fdp_moved_slots[kMaxHandles] = {};
  // Of those moves, the ones out of an erase unit that also held another
  // handle's data (the noisy reclaim unit handle: another handle's
  // invalidations helped make the victim). None with persistent isolation.
  std::uint64_t fdp_moved_shared_slots[kMaxHandles] = {};
  std::uint64_t fdp_ru_filled[kMaxHandles] = {};
  // The FDP events log, by handle: Media Reallocated (GC moved the handle's
  // data out of a victim: one per victim erased) and Reclaim Unit Not Fully
  // Written (the handle was moved to a fresh reclaim unit before it filled
  // its current one: here, after power-loss recovery).
  std::uint64_t fdp_media_reallocated[kMaxHandles] = {};
  std::uint64_t fdp_ru_not_fully_written[kMaxHandles] = {};
};

}  // namespace ssdtwin
