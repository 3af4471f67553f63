// The columns of timeseries.csv, declared once with their units and
// descriptions: the host figures the interval series computes, the drive
// activity sampled at each interval's end, and the power meter's reading.
// The file's header and `ssdtwin metrics` both come from this table.
#pragma once

#include <cstdio>
#include <vector>

namespace ssdtwin {

class Drive;

// The drive activity sampled per interval: running totals (written as
// per-interval differences) and levels.
struct ActivityColumn {
  const char* name;
  bool running_total;  // true: a counter, reported per interval; false: a level
  const char* unit;
  const char* description;
  double (*sample)(const Drive& drive);  // the counter's total or the level, now
};
const std::vector<ActivityColumn>& activity_columns();

struct TimeseriesColumn {
  const char* name;
  const char* unit;
  const char* description;
};
// Every column in file order; `power`: the drive has a power meter (the
// last column, power_w, is there only then).
std::vector<TimeseriesColumn> timeseries_columns(bool power);
// The 1-based column of `name` in the file (gnuplot's numbering); 0 if none.
int timeseries_column(const char* name, bool power);
void print_timeseries_columns(std::FILE* out);

}  // namespace ssdtwin
