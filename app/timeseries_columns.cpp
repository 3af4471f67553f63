#include "app/timeseries_columns.h"

#include <cstring>

#include "app/drive.h"

namespace ssdtwin {

const std::vector<ActivityColumn>& activity_columns() {
  static const std::vector<ActivityColumn> kColumns = {
      {"gc_moved_pages", true, "pages", "valid pages relocated by GC in the interval",
       [](const Drive& d) { return static_cast<double>(d.translation->stats().gc_moved_slots); }},
      {"fold_moved_pages", true, "pages", "pages folded from SLC to native mode in the interval",
       [](const Drive& d) { return static_cast<double>(d.translation->stats().fold_moved_slots); }},
      {"blocks_erased", true, "blocks",
       "blocks erased by GC, folding and SLC reclaim in the interval",
       [](const Drive& d) { return static_cast<double>(d.translation->stats().gc_erases); }},
      {"host_pages_to_slc", true, "pages",
       "host pages programmed into the SLC cache in the interval",
       [](const Drive& d) { return static_cast<double>(d.translation->stats().host_slc_slots); }},
      {"free_blocks_per_die", false, "blocks",
       "erased blocks of the normal pools, drive average per die",
       [](const Drive& d) {
         if (!d.ftl) return 0.0;  // zones own their blocks: no free pool
         return static_cast<double>(d.ftl->blocks().free_blocks_total()) / d.ftl->blocks().dies();
       }},
  };
  return kColumns;
}

std::vector<TimeseriesColumn> timeseries_columns(bool power) {
  std::vector<TimeseriesColumn> cols = {
      {"phase", "name", "the phase the interval belongs to"},
      {"time_s", "s", "simulated time at the interval's end (the last one may be partial)"},
      {"read_mb_per_s", "MB/s", "host read throughput over the interval (10^6 B/s)"},
      {"write_mb_per_s", "MB/s", "host write throughput over the interval (10^6 B/s)"},
      {"read_iops", "IOPS", "host reads completed per second over the interval"},
      {"write_iops", "IOPS", "host writes completed per second over the interval"},
      {"trim_iops", "IOPS", "host trims completed per second over the interval"},
      {"slc_cache_gb", "GB", "data in the SLC cache at the interval's end (10^9 B)"},
  };
  for (const ActivityColumn& c : activity_columns())
    cols.push_back({c.name, c.unit, c.description});
  if (power) cols.push_back({"power_w", "W", "the drive's mean power over the interval"});
  return cols;
}

int timeseries_column(const char* name, bool power) {
  const auto cols = timeseries_columns(power);
  for (std::size_t i = 0; i < cols.size(); ++i)
    if (std::strcmp(cols[i].name, name) == 0) return static_cast<int>(i) + 1;
  return 0;
}

void print_timeseries_columns(std::FILE* out) {
  std::fprintf(out,
               "\ntimeseries.csv: one row per phase and interval (workload.timeseries.interval)\n");
  for (const TimeseriesColumn& c : timeseries_columns(true))
    std::fprintf(out, "  %-42s %-11s %s\n", c.name, c.unit, c.description);
}

}  // namespace ssdtwin
