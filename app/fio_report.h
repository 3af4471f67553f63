// fio's own output for a run of an fio job file (issue 17): DIR/fio.json in
// the shape `fio --output-format=json` (or json+) writes, and fio's
// per-interval logs (write_bw_log, write_iops_log, write_lat_log with
// log_avg_msec) in its CSV format, so scripts and plotting tools that read
// fio's results read the simulator's. Times are simulated times; fields
// with no simulator counterpart are filled as fio fills an empty
// statistic (docs/FIO.md lists them).
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/drive.h"
#include "app/runner.h"
#include "host/fio/fio_job.h"

namespace ssdtwin {

enum class FioOutputFormat { kJson, kJsonPlus };

// Throws ConfigError for a format other than json or json+.
FioOutputFormat parse_fio_output_format(const std::string& s);

nlohmann::ordered_json fio_json(const Drive& drive, const FioWorkload& fio, const RunReport& report,
                                FioOutputFormat format);

// Writes fio.json into `out_dir` and each job's logs where the job file
// put them (relative paths: in `out_dir`). Throws OutputError naming the
// file that could not be written.
// The job file as run (file, global options, each job's options and where
// it ran), for summary.json's resolved config and snapshot keys.
nlohmann::ordered_json fio_job_json(const FioWorkload& fio, const std::string& path);

// Removes iologs an earlier run left where this run writes its own (the
// streams append, as fio's jobs do, so that clones sharing a log all land
// in it). Throws OutputError.
void prepare_fio_outputs(const FioWorkload& fio);

// A key of fio.json (or of the job file as run) as declared: fio's name,
// unit and meaning. The output is written from the same tables.
struct FioKeyDoc {
  const char* name;
  const char* unit;
  const char* description;
};
struct FioBlockDoc {
  const char* path;  // where the block's keys sit ("[]": each member of an array)
  const char* description;
  std::vector<FioKeyDoc> keys;  // in the order they are written
};
std::vector<FioBlockDoc> fio_blocks();

// `ssdtwin metrics`: a section per block, one line per key.
void print_fio_keys(std::FILE* out);

void write_fio_results(const std::string& out_dir, const Drive& drive, const FioWorkload& fio,
                       const RunReport& report, FioOutputFormat format);

}  // namespace ssdtwin
