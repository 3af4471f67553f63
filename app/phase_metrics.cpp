#include "app/phase_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <stdexcept>

#include "app/block_metrics.h"
#include "app/fio_report.h"
#include "app/metric_json.h"
#include "app/report_procedures.h"
#include "app/run_metrics.h"
#include "app/timeseries_columns.h"
#include "power/power_config.h"
#include "sim/csv.h"
#include "sim/fill_curve.h"

namespace ssdtwin {

std::string MetricValue::csv() const {
  char buf[32];
  switch (kind) {
    case Kind::kInt:
    case Kind::kBool:
      std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(i));
      return buf;
    case Kind::kReal:
      return csv_number(d);
    default:
      return "";
  }
}

namespace {

using Json = nlohmann::ordered_json;
using V = MetricValue;

// --- Counter deltas over the phase --------------------------------------
template <auto M>
V ftl(const PhaseView& v, int) {
  return V::integer(ftl_delta<M>(v.phase));
}
template <auto M>
V ftl_bytes(const PhaseView& v, int) {  // a count of 4 KiB slots, in bytes
  return V::real(static_cast<double>(ftl_delta<M>(v.phase)) * kSectorBytes);
}
template <auto M>
V nand(const PhaseView& v, int) {
  return V::integer(nand_delta<M>(v.phase));
}

// --- Host-side figures, per IO direction (arg = IoOp) -------------------
V op_ios(const PhaseView& v, int op) { return V::integer(v.phase.result.ios[op]); }
V op_bytes(const PhaseView& v, int op) { return V::integer(v.phase.result.bytes[op]); }
V op_mb_per_s(const PhaseView& v, int op) {
  return V::real(
      v.seconds > 0
          ? round_decimals(static_cast<double>(v.phase.result.bytes[op]) / v.seconds / 1e6, 3)
          : 0.0);
}
V op_iops(const PhaseView& v, int op) {
  return V::real(v.seconds > 0
                     ? round_decimals(static_cast<double>(v.phase.result.ios[op]) / v.seconds, 2)
                     : 0.0);
}
const LatencyHistogram& lat(const PhaseView& v, int op) { return v.phase.result.latency[op]; }
V lat_mean(const PhaseView& v, int op) {
  return V::real(round_decimals(lat(v, op).mean() / 1e3, 3));
}
V lat_p50(const PhaseView& v, int op) { return V::real(to_us(lat(v, op).percentile(0.50))); }
V lat_p99(const PhaseView& v, int op) { return V::real(to_us(lat(v, op).percentile(0.99))); }
V lat_p99_9(const PhaseView& v, int op) { return V::real(to_us(lat(v, op).percentile(0.999))); }
V lat_max(const PhaseView& v, int op) { return V::real(to_us(lat(v, op).max())); }

V sim_seconds(const PhaseView& v, int) { return V::real(v.seconds); }

// Every page programmed per host byte written. A fast phase runs no NAND
// operation, so it counts the flash writes the FTL placed instead.
V write_amplification(const PhaseView& v, int) {
  if (v.phase.spec->fast) {
    const double host = static_cast<double>(ftl_delta<&FtlStats::host_write_slots>(v.phase));
    const double placed = host +
                          static_cast<double>(ftl_delta<&FtlStats::gc_moved_slots>(v.phase)) +
                          static_cast<double>(ftl_delta<&FtlStats::flush_padding_slots>(v.phase));
    return host > 0 ? V::real(placed / host) : V::null();
  }
  const double host = static_cast<double>(v.phase.result.bytes[static_cast<int>(IoOp::kWrite)]);
  const double nand =
      static_cast<double>(nand_delta<&NandStats::page_programs>(v.phase)) * v.drive.geo.page_size;
  return host > 0 ? V::real(nand / host) : V::null();
}

// Program and erase suspend: on drives that turn it on (drive.nand.suspend),
// absent otherwise, so that a drive without it reports what it did before.
template <auto M>
V nand_suspend(const PhaseView& v, int) {
  if (!v.drive.timing.suspend.enabled()) return V::absent();
  return V::integer(nand_delta<M>(v.phase));
}

// Zoned namespaces (ftl/zoned_ftl.h): absent on a drive without zones, so
// that other drives report what they did before.
V zoned_failed(const PhaseView& v, int) {
  if (!v.drive.translation->zoned()) return V::absent();
  std::uint64_t n = 0;
  for (std::size_t k = 1; k < kCmdStatuses; ++k) n += v.phase.result.errors[k];
  return V::integer(n);
}
V zoned_errors(const PhaseView& v, int status) {
  if (!v.drive.translation->zoned()) return V::absent();
  return V::integer(v.phase.result.errors[status]);
}
V zoned_mgmt(const PhaseView& v, int what) {
  if (!v.drive.translation->zoned()) return V::absent();
  const PhaseResult& r = v.phase.result;
  switch (what) {
    case 0:
      return V::integer(r.zone_mgmt);
    case 1:
      return V::real(round_decimals(r.zone_mgmt_latency.mean() / 1e3, 3));
    case 2:
      return V::real(to_us(r.zone_mgmt_latency.percentile(0.99)));
    default:
      return V::real(to_us(r.zone_mgmt_latency.max()));
  }
}
V zoned_appends(const PhaseView& v, int) {
  if (!v.drive.translation->zoned()) return V::absent();
  return V::integer(v.phase.result.append_lbas.size());
}
V zoned_log(const PhaseView& v, int what) {
  if (!v.drive.translation->zoned() || v.phase.spec->rw != RwKind::kZoneLog) return V::absent();
  const PhaseResult& r = v.phase.result;
  switch (what) {
    case 0:
      return V::integer(r.log_user_bytes);
    case 1:
      return V::integer(r.log_gc_bytes);
    case 2:
      return V::integer(r.log_zone_resets);
    default:
      return r.log_user_bytes > 0 ? V::real(static_cast<double>(r.log_user_bytes + r.log_gc_bytes) /
                                            static_cast<double>(r.log_user_bytes))
                                  : V::null();
  }
}

V die_utilization(const PhaseView& v, int) {
  const double die_time = v.seconds * static_cast<double>(v.drive.geo.dies());
  return V::real(die_time > 0
                     ? to_seconds(v.phase.nand_after.die_busy - v.phase.nand_before.die_busy) /
                           die_time
                     : 0.0);
}

V retry_reads_by_step(const PhaseView& v, int) {
  std::vector<std::uint64_t> by_step;  // [0] = step 1; the last counts steps >= 15
  for (std::size_t k = 1; k < FtlStats::kRetryBuckets; ++k)
    by_step.push_back(ftl_delta<&FtlStats::retry_reads_by_step>(v.phase, k));
  return V::of_list(std::move(by_step));
}

V map_hit_rate(const PhaseView& v, int) {
  const double hits = static_cast<double>(ftl_delta<&FtlStats::map_hits>(v.phase));
  const double misses = static_cast<double>(ftl_delta<&FtlStats::map_misses>(v.phase));
  return V::real(hits + misses > 0 ? hits / (hits + misses) : 1.0);
}
V buffer_waits(const PhaseView& v, int) { return V::integer(v.phase.buffer_waits); }
V min_free_blocks(const PhaseView& v, int) { return V::integer(v.phase.min_free_blocks); }

V slc_hit_share(const PhaseView& v, int) {
  const double slc = static_cast<double>(ftl_delta<&FtlStats::host_slc_slots>(v.phase));
  const double native = static_cast<double>(ftl_delta<&FtlStats::host_native_slots>(v.phase));
  return V::real(slc + native > 0 ? slc / (slc + native) : 0.0);
}
V slc_occupancy_gb(const PhaseView& v, int) { return V::real(v.phase.slc_bytes_at_end / 1e9); }

// --- Review-procedure figures of the phases that ask for them ------------
struct ConsistencyScore {
  double window_s = 0, average = 0, stddev = 0;
};

// AnandTech's consistency score: average IOPS over the last part of the run
// and that average divided by the standard deviation (higher is steadier).
ConsistencyScore consistency_score(const PhaseReport& p) {
  const std::vector<double> iops = interval_iops(p);
  const double secs = to_seconds(p.result.series->interval());
  const auto n =
      std::min(iops.size(), static_cast<std::size_t>(to_seconds(p.spec->score_last) / secs + 0.5));
  ConsistencyScore c;
  if (n == 0) return c;
  c.window_s = static_cast<double>(n) * secs;
  for (std::size_t i = iops.size() - n; i < iops.size(); ++i) c.average += iops[i];
  c.average /= static_cast<double>(n);
  for (std::size_t i = iops.size() - n; i < iops.size(); ++i)
    c.stddev += (iops[i] - c.average) * (iops[i] - c.average);
  c.stddev = std::sqrt(c.stddev / static_cast<double>(n));
  return c;
}
V consistency(const PhaseView& v, int field) {
  if (v.phase.spec->report != PhaseReportKind::kConsistency) return V::absent();
  const ConsistencyScore c = consistency_score(v.phase);
  switch (field) {
    case 0:
      return V::real(c.window_s);
    case 1:
      return V::real(c.average);
    case 2:
      return V::real(c.stddev);
    default:
      return c.stddev > 0 ? V::real(c.average / c.stddev) : V::null();
  }
}

V fill(const PhaseView& v, int field) {
  if (v.phase.spec->report != PhaseReportKind::kFillCurve) return V::absent();
  const ByteStepSeries& s = *v.phase.result.by_bytes;
  std::vector<double> mbs(s.segments());
  for (std::size_t k = 0; k < mbs.size(); ++k) mbs[k] = s.rate(k) / 1e6;
  const FillCurveMetrics m = analyze_fill_curve(mbs, static_cast<double>(s.step()) / 1e9);
  switch (field) {
    case 0:
      return V::real(m.cache_gb);
    case 1:
      return V::boolean(m.drop_found);
    case 2:
      return V::real(m.initial_mb_per_s);
    case 3:
      return V::real(m.after_mb_per_s);
    case 4:
      return V::real(m.last16gb_mb_per_s);
    default:
      return V::real(m.overall_mb_per_s);
  }
}

V wear(const PhaseView& v, int field) {
  const BlockManager::Wear& w = v.phase.wear;
  switch (field) {
    case 0:
      return V::integer(w.min);
    case 1:
      return V::real(w.mean);
    case 2:
      return V::integer(w.max);
    default:
      return V::integer(w.slc_erases);
  }
}

V valid_shares(const PhaseView& v, int field) {
  const BlockManager::ValidShares& s = v.phase.valid_shares;
  const double values[] = {s.p10, s.p25, s.p50, s.p75, s.p90, s.mean};
  return V::real(values[field]);
}

// --- Power (drives with drive.power; absent otherwise) -------------------
double power_seconds(const PhaseReport& p) {
  return to_seconds(p.power_after.at - p.power_before.at);
}
double energy_of(const EnergyTotals& e, int part) {
  switch (part) {
    case 0:
      return e.total();
    case 1:
      return e.nand_array;
    case 2:
      return e.nand_io;
    case 3:
      return e.controller;
    default:
      return e.background;
  }
}
V power_energy(const PhaseView& v, int part) {
  if (!v.phase.has_power) return V::absent();
  return V::real(energy_of(v.phase.power_after.energy, part) -
                 energy_of(v.phase.power_before.energy, part));
}
double average_w(const PhaseReport& p) {
  const double secs = power_seconds(p);
  return secs > 0 ? (p.power_after.energy.total() - p.power_before.energy.total()) / secs : 0.0;
}
V power_average(const PhaseView& v, int) {
  if (!v.phase.has_power) return V::absent();
  return power_seconds(v.phase) > 0 ? V::real(average_w(v.phase)) : V::null();
}
V power_peak(const PhaseView& v, int) {
  if (!v.phase.has_power) return V::absent();
  return power_seconds(v.phase) > 0 ? V::real(v.phase.peak_power_w) : V::null();
}
// Host work per watt: MB/s (reads and writes) or IOPS (every op) over the
// phase's average power.
V power_efficiency(const PhaseView& v, int iops) {
  if (!v.phase.has_power) return V::absent();
  const PhaseResult& r = v.phase.result;
  const double w = average_w(v.phase);
  if (w <= 0 || v.seconds <= 0) return V::null();
  const double per_s = iops ? static_cast<double>(r.ios[0] + r.ios[1] + r.ios[2]) / v.seconds
                            : static_cast<double>(r.bytes[0] + r.bytes[1]) / v.seconds / 1e6;
  return V::real(per_s / w);
}
V power_wakeups(const PhaseView& v, int) {
  if (!v.phase.has_power) return V::absent();
  return V::integer(v.phase.power_after.states.wakeups - v.phase.power_before.states.wakeups);
}
V power_wake_delay(const PhaseView& v, int) {
  if (!v.phase.has_power) return V::absent();
  return V::real(
      to_seconds(v.phase.power_after.states.wake_delay - v.phase.power_before.states.wake_delay) *
      1e3);
}
V power_state_time(const PhaseView& v, int state) {
  if (!v.phase.has_power) return V::absent();
  const auto& after = v.phase.power_after.states.time_in_state;
  const auto& before = v.phase.power_before.states.time_in_state;
  if (static_cast<std::size_t>(state) >= after.size()) return V::absent();
  return V::real(to_seconds(after[state] - before[state]));
}

V wall_seconds(const PhaseView& v, int) { return V::real(v.phase.wall_seconds); }
V ios_per_wall_second(const PhaseView& v, int) {
  std::uint64_t ios = 0;
  for (int op = 0; op < PhaseResult::kOps; ++op) ios += v.phase.result.ios[op];
  return V::real(v.phase.wall_seconds > 0 ? static_cast<double>(ios) / v.phase.wall_seconds : 0.0);
}

std::vector<PhaseMetric> build_table() {
  std::vector<PhaseMetric> t;
  t.push_back({"sim_seconds", "s", "simulated length of the phase", sim_seconds});
  for (int op = 0; op < PhaseResult::kOps; ++op) {
    const std::string o = kOpNames[op];
    t.push_back({o + ".ios", "IOs", "host commands completed", op_ios, op});
    t.push_back({o + ".bytes", "B", "host bytes transferred", op_bytes, op});
    t.push_back(
        {o + ".mb_per_s", "MB/s", "host throughput over the phase (10^6 B/s)", op_mb_per_s, op});
    t.push_back({o + ".iops", "IOPS", "host commands per simulated second", op_iops, op});
    t.push_back({o + ".latency_us.mean", "us", "mean command latency, submission to completion",
                 lat_mean, op});
    t.push_back({o + ".latency_us.p50", "us", "median command latency", lat_p50, op});
    t.push_back({o + ".latency_us.p99", "us", "99th-percentile command latency", lat_p99, op});
    t.push_back(
        {o + ".latency_us.p99_9", "us", "99.9th-percentile command latency", lat_p99_9, op});
    t.push_back({o + ".latency_us.max", "us", "slowest command", lat_max, op});
  }
  const std::vector<PhaseMetric> rest = {
      {"write_amplification", "ratio",
       "bytes programmed (parity, GC, map included) per host byte written; "
       "a fast phase counts the pages the FTL placed",
       write_amplification},
      {"nand.read_ops", "ops", "flash read operations (a multi-plane read counts once)",
       nand<&NandStats::reads>},
      {"nand.page_reads", "pages", "die-pages read (a multi-plane read counts its planes)",
       nand<&NandStats::page_reads>},
      {"nand.program_ops", "ops", "flash program operations", nand<&NandStats::programs>},
      {"nand.page_programs", "pages", "die-pages programmed", nand<&NandStats::page_programs>},
      {"nand.erases", "blocks", "block erases", nand<&NandStats::erases>},
      {"nand.bus_bytes", "B", "bytes moved on the flash channels", nand<&NandStats::bus_bytes>},
      {"nand.suspend.program_suspends", "suspends",
       "programs suspended for host reads (drive.nand.suspend)",
       nand_suspend<&NandStats::program_suspends>},
      {"nand.suspend.erase_suspends", "suspends", "erases suspended for host reads",
       nand_suspend<&NandStats::erase_suspends>},
      {"nand.suspend.reads", "reads", "flash reads served while a program or erase was suspended",
       nand_suspend<&NandStats::suspend_reads>},
      {"nand.die_utilization", "share", "share of the phase the dies were busy, averaged over dies",
       die_utilization},
      {"ftl.gc_invocations", "blocks", "blocks collected by garbage collection",
       ftl<&FtlStats::gc_victims>},
      {"ftl.wear_leveling_invocations", "blocks", "blocks collected by static wear levelling",
       ftl<&FtlStats::wl_victims>},
      {"ftl.rain_parity_units", "units", "RAIN parity program units written",
       ftl<&FtlStats::rain_parity_units>},
      {"ftl.gc_moved_pages", "pages", "valid 4 KiB pages relocated by GC",
       ftl<&FtlStats::gc_moved_slots>},
      {"ftl.gc_erases", "blocks", "erases by GC and folding", ftl<&FtlStats::gc_erases>},
      {"ftl.gc_padding_pages", "pages", "4 KiB slots GC padded to close a program unit",
       ftl<&FtlStats::gc_padding_slots>},
      {"ftl.fold_invocations", "blocks", "SLC blocks folded into native mode",
       ftl<&FtlStats::fold_victims>},
      {"ftl.fold_moved_pages", "pages", "4 KiB pages moved from SLC to native mode",
       ftl<&FtlStats::fold_moved_slots>},
      {"ftl.flush_units", "units", "program units flushed from the write buffer",
       ftl<&FtlStats::flush_units>},
      {"ftl.flush_padding_pages", "pages",
       "4 KiB slots padded to close a program unit: an idle flush, a host Flush or FUA write",
       ftl<&FtlStats::flush_padding_slots>},
      {"ftl.reads_from_controller_memory", "pages",
       "4 KiB reads served from the write buffer or unprogrammed pages",
       ftl<&FtlStats::read_from_controller>},
      {"ftl.reads_unmapped", "pages", "4 KiB reads of never-written or trimmed pages",
       ftl<&FtlStats::read_unmapped>},
      {"ftl.trimmed_pages", "pages", "4 KiB pages trimmed", ftl<&FtlStats::trim_slots>},
      {"ftl.reliability.retry_reads_by_step", "reads",
       "re-reads at retry step 1, 2, ... (the last counts steps >= 15)", retry_reads_by_step},
      {"ftl.reliability.reads_retried", "reads", "reads that needed at least one retry step",
       ftl<&FtlStats::reads_retried>},
      {"ftl.reliability.reads_uncorrectable", "reads", "reads that failed every retry step",
       ftl<&FtlStats::reads_uncorrectable>},
      {"ftl.reliability.rain_member_reads", "reads", "reads of RAIN stripe members for rebuilds",
       ftl<&FtlStats::rain_member_reads>},
      {"ftl.reliability.pages_rebuilt", "pages", "uncorrectable die-pages rebuilt from RAIN",
       ftl<&FtlStats::pages_rebuilt>},
      {"ftl.reliability.reads_lost", "reads", "uncorrectable reads not rebuilt: data lost",
       ftl<&FtlStats::reads_lost>},
      {"ftl.reliability.host_reads_failed", "pages", "host 4 KiB reads that failed",
       ftl<&FtlStats::host_reads_failed>},
      {"ftl.reliability.rewritten_pages", "pages",
       "pages written again after a rebuild or a failed program", ftl<&FtlStats::rewrite_slots>},
      {"ftl.reliability.read_reclaim_blocks", "blocks", "blocks relocated by read reclaim",
       ftl<&FtlStats::reclaim_blocks>},
      {"ftl.reliability.grown_bad_blocks", "blocks",
       "blocks retired after a failed erase or program", ftl<&FtlStats::grown_bad_blocks>},
      {"ftl.reliability.program_failures", "ops", "programs that failed (their data written again)",
       ftl<&FtlStats::program_failures>},
      {"ftl.reliability.failed_blocks", "blocks", "blocks a workload fault made fail",
       ftl<&FtlStats::failed_blocks>},
      {"ftl.reliability.failed_dies", "dies", "dies a workload fault made fail",
       ftl<&FtlStats::failed_dies>},
      {"ftl.reliability.map_checkpoints", "checkpoints", "map checkpoints taken (ftl.power_loss)",
       ftl<&FtlStats::map_checkpoints>},
      {"ftl.reliability.checkpoint_map_pages", "pages", "translation pages the checkpoints wrote",
       ftl<&FtlStats::checkpoint_tpages>},
      {"map_cache.hits", "lookups", "map-cache lookups that found their segment",
       ftl<&FtlStats::map_hits>},
      {"map_cache.misses", "lookups", "map-cache lookups that did not", ftl<&FtlStats::map_misses>},
      {"map_cache.hit_rate", "share", "hits over lookups (1 when there were none)", map_hit_rate},
      {"map_cache.tpage_reads", "pages", "translation pages read from flash",
       ftl<&FtlStats::map_reads>},
      {"map_cache.tpage_writebacks", "pages", "translation pages written back",
       ftl<&FtlStats::map_writebacks>},
      {"map_cache.merge_reads", "pages",
       "reads of a partly cached translation page before its write-back",
       ftl<&FtlStats::map_merge_reads>},
      {"map_cache.loads_from_controller_memory", "lookups",
       "misses served from controller memory (no flash read)", ftl<&FtlStats::map_memory_loads>},
      {"map_cache.journal_pages", "pages", "4 KiB pages of GC map-update journal written",
       ftl<&FtlStats::map_journal_slots>},
      {"ftl.write_buffer_waits", "commands", "writes that waited for write-buffer space",
       buffer_waits},
      {"ftl.min_free_blocks_per_die_so_far", "blocks",
       "fewest free blocks any die had, since the run began", min_free_blocks},
      {"slc_cache.host_bytes_to_slc", "B", "host data programmed into the SLC cache",
       ftl_bytes<&FtlStats::host_slc_slots>},
      {"slc_cache.host_bytes_to_native", "B", "host data programmed directly in native mode",
       ftl_bytes<&FtlStats::host_native_slots>},
      {"slc_cache.blocks_reclaimed", "blocks", "SLC blocks erased with no valid data (no fold)",
       ftl<&FtlStats::slc_reclaims>},
      {"slc_cache.bytes_folded", "B", "data moved from SLC to native mode",
       ftl_bytes<&FtlStats::fold_moved_slots>},
      {"slc_cache.cache_hit_share", "share", "share of host data that went to the SLC cache",
       slc_hit_share},
      {"slc_cache.occupancy_gb_at_end", "GB", "SLC cache data held at the end of the phase",
       slc_occupancy_gb},
      {"consistency.score_window_s", "s", "window of the consistency score (the run's last part)",
       consistency, 0},
      {"consistency.average_iops", "IOPS", "mean per-interval IOPS over the window", consistency,
       1},
      {"consistency.stddev_iops", "IOPS", "standard deviation of the per-interval IOPS",
       consistency, 2},
      {"consistency.average_over_stddev", "ratio",
       "AnandTech's consistency score (higher is steadier)", consistency, 3},
      {"fill.slc_cache_gb", "GB",
       "data written before the fill curve's drop (the SLC cache seen from the host)", fill, 0},
      {"fill.drop_found", "bool", "whether the fill curve has a drop", fill, 1},
      {"fill.cached_mb_per_s", "MB/s", "write speed before the drop", fill, 2},
      {"fill.after_cache_mb_per_s", "MB/s", "write speed after the drop", fill, 3},
      {"fill.last16gb_mb_per_s", "MB/s", "write speed over the fill's last 16 GB", fill, 4},
      {"fill.overall_mb_per_s", "MB/s", "whole fill: bytes over time", fill, 5},
      {"wear.min", "P/E cycles", "fewest erases of any native-mode block, at the end of the phase",
       wear, 0},
      {"wear.mean", "P/E cycles", "mean erases per native-mode block", wear, 1},
      {"wear.max", "P/E cycles", "most erases of any native-mode block", wear, 2},
      {"wear.slc_erases_total", "erases", "erases in SLC mode, all blocks", wear, 3},
      {"blocks.valid_share_p10", "share",
       "full native blocks' valid pages over capacity at the end of the phase: 10th percentile",
       valid_shares, 0},
      {"blocks.valid_share_p25", "share", "the same, 25th percentile", valid_shares, 1},
      {"blocks.valid_share_p50", "share", "the same, median", valid_shares, 2},
      {"blocks.valid_share_p75", "share", "the same, 75th percentile", valid_shares, 3},
      {"blocks.valid_share_p90", "share", "the same, 90th percentile", valid_shares, 4},
      {"blocks.valid_share_mean", "share", "the same, mean", valid_shares, 5},
      {"power.energy_j", "J", "energy the drive drew over the phase (drive.power)", power_energy,
       0},
      {"power.average_w", "W", "mean power over the phase", power_average},
      {"power.peak_w", "W", "highest mean power over one drive.power.peak_window", power_peak},
      {"power.nand_array_j", "J", "energy of flash array reads, programs and erases", power_energy,
       1},
      {"power.nand_io_j", "J", "energy of flash channel transfers", power_energy, 2},
      {"power.controller_j", "J", "energy of firmware cores and ECC at work", power_energy, 3},
      {"power.background_j", "J", "idle draw of the power states the drive was in", power_energy,
       4},
      {"power.mb_per_s_per_w", "MB/s/W", "host MB/s (reads and writes) per watt of average power",
       power_efficiency, 0},
      {"power.iops_per_w", "IOPS/W", "host commands per second per watt of average power",
       power_efficiency, 1},
      {"power.wakeups", "wakes", "commands that found the drive in a non-operational state",
       power_wakeups},
      {"power.wake_delay_ms", "ms",
       "latency the wakes added, summed over the commands they held up", power_wake_delay},
      {"wall_seconds", "s", "host (wall) time spent simulating the phase", wall_seconds, 0, true},
      {"host_ios_per_wall_second", "IOs/s", "host commands simulated per wall second",
       ios_per_wall_second, 0, true},
  };
  // The simulator's own figures (wall time) go last, after every figure of
  // the drive.
  std::copy_if(rest.begin(), rest.end(), std::back_inserter(t),
               [](const PhaseMetric& m) { return !m.wall; });
  // Time per power state by index (names are the drive's: summary.json's
  // power.time_in_state_s).
  for (int k = 0; k < static_cast<int>(kMaxPowerStates); ++k)
    t.push_back({"power.state" + std::to_string(k) + "_s", "s",
                 "time in the drive's power state k (drive.power.states.k)", power_state_time, k});
  // Zoned namespaces: what the host saw (absent on a drive without zones).
  t.push_back({"zoned.commands_failed", "commands",
               "commands the drive completed with an error status", zoned_failed});
  for (std::size_t k = 1; k < kCmdStatuses; ++k)
    t.push_back({std::string("zoned.errors.") + cmd_status_name(static_cast<CmdStatus>(k)),
                 "commands", "commands failed with this NVMe status", zoned_errors,
                 static_cast<int>(k)});
  t.push_back({"zoned.zone_mgmt_commands", "commands", "Zone Management Send commands completed",
               zoned_mgmt, 0});
  t.push_back({"zoned.zone_mgmt_latency_us.mean", "us",
               "their mean latency (a reset's is its erases)", zoned_mgmt, 1});
  t.push_back(
      {"zoned.zone_mgmt_latency_us.p99", "us", "their 99th-percentile latency", zoned_mgmt, 2});
  t.push_back({"zoned.zone_mgmt_latency_us.max", "us", "the slowest", zoned_mgmt, 3});
  t.push_back({"zoned.appends_recorded", "commands",
               "Zone Append LBAs recorded (in completion order)", zoned_appends});
  t.push_back({"zoned.log_user_bytes", "B", "zone_log: bytes the host log wrote for its user",
               zoned_log, 0});
  t.push_back({"zoned.log_gc_bytes", "B", "zone_log: bytes the host's garbage collection copied",
               zoned_log, 1});
  t.push_back({"zoned.log_zone_resets", "zones",
               "zone_log: zones the host's garbage collection reset", zoned_log, 2});
  t.push_back({"zoned.host_write_amplification", "ratio",
               "zone_log: host bytes written (user and GC copies) per user byte", zoned_log, 3});
  std::copy_if(rest.begin(), rest.end(), std::back_inserter(t),
               [](const PhaseMetric& m) { return m.wall; });
  return t;
}

}  // namespace

const std::vector<PhaseMetric>& phase_metrics() {
  static const std::vector<PhaseMetric> table = build_table();
  return table;
}

const PhaseMetric* find_phase_metric(const std::string& name) {
  for (const PhaseMetric& m : phase_metrics())
    if (m.name == name) return &m;
  return nullptr;
}

double phase_metric(const PhaseView& v, const std::string& name) {
  const PhaseMetric* m = find_phase_metric(name);
  if (!m) throw std::logic_error("no metric named '" + name + "'");
  const MetricValue val = m->value(v, m->arg);
  switch (val.kind) {
    case MetricValue::Kind::kInt:
    case MetricValue::Kind::kBool:
      return static_cast<double>(val.i);
    case MetricValue::Kind::kReal:
      return val.d;
    default:
      return std::nan("");
  }
}

void add_phase_metrics(const PhaseView& v, Json& j) { add_metrics(phase_metrics(), v, j); }

std::string metrics_csv(const Drive& drive, const WorkloadSpec& workload, const RunReport& report) {
  std::string units = "# unit,-", header = "phase", rows;
  // A drive without a power model, or without suspend, writes no columns
  // for them: its metrics.csv stays as it was before they existed.
  auto column = [&](const PhaseMetric& m) {
    return in_metrics_csv(m) && (drive.power_meter || m.name.rfind("power.", 0) != 0) &&
           (drive.timing.suspend.enabled() || m.name.rfind("nand.suspend.", 0) != 0);
  };
  for (const PhaseMetric& m : phase_metrics()) {
    if (!column(m)) continue;  // a list: summary.json only
    units += std::string(",") + m.unit;
    header += "," + m.name;
  }
  for (const PhaseReport& p : report.phases) {
    const PhaseView v{drive, workload, p, to_seconds(p.result.end - p.result.start)};
    rows += csv_field(p.spec->name);
    for (const PhaseMetric& m : phase_metrics()) {
      if (!column(m)) continue;
      rows += "," + m.value(v, m.arg).csv();
    }
    rows += "\n";
  }
  return units + "\n" + header + "\n" + rows;
}

bool in_metrics_csv(const PhaseMetric& m) { return m.value != retry_reads_by_step; }

void print_metrics(std::FILE* out) {
  std::fprintf(out,
               "Per-phase metrics: summary.json phases[] (dotted path) and metrics.csv (column)\n");
  for (const PhaseMetric& m : phase_metrics())
    std::fprintf(out, "%-44s %-11s %s%s%s\n", m.name.c_str(), m.unit, m.description,
                 m.value == retry_reads_by_step ? " (a list: summary.json only)" : "",
                 m.wall ? " (wall time: differs run to run)" : "");
  std::fprintf(out,
               "\nPer-phase blocks: summary.json phases[] only, when they apply "
               "(\"[]\": one row per member)\n");
  print_block_metrics(out);
  print_procedure_metrics(out);
  print_run_metrics(out);
  print_timeseries_columns(out);
  print_fio_keys(out);
}

}  // namespace ssdtwin
