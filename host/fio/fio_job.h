// fio job files as workloads (issue 17): `ssdtwin run --fio JOB.fio` runs a
// job file unchanged on the simulated drive, as fio would run it against a
// raw device.
//
// The file is read as fio reads it: INI sections, `[global]` defaults for
// the jobs after it, `include FILE`, `${VAR}` from the environment, comments
// from `;` or `#`. Jobs between stonewalls run concurrently and form one
// phase of the workload, each job (and each numjobs clone) a stream of it
// (PhaseSpec::concurrent); `stonewall` / `wait_for_previous` start the next
// phase. Options that describe the IO map onto PhaseSpec (docs/FIO.md has
// the table); options that concern only the host (ioengine, direct,
// filename, ...) are accepted and reported once as ignored; anything else
// fio has is an error naming the file, line and option.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "host/workload/workload.h"

namespace ssdtwin {

// One `key=value` line (a bare flag has an empty value), after ${VAR}
// expansion, with where it came from.
struct FioOption {
  std::string key, value;
  std::string file;
  int line = 0;
  bool flag = false;  // given without '='
};

struct FioSection {
  std::string name;
  std::string file;
  int line = 0;
  std::vector<FioOption> options;
};

// The sections of a job file in order, includes expanded. `getenv` resolves
// ${VAR} (tests pass their own). Throws ConfigError naming file and line.
std::vector<FioSection> read_fio_sections(
    const std::string& path,
    const std::function<std::optional<std::string>(const std::string&)>& getenv);

// What fio.json and fio's logs need to know about each job section.
struct FioJobInfo {
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;  // the section's own, as written
  std::size_t phase = 0;                                     // WorkloadSpec::phases index
  std::size_t first_stream = 0;  // its streams: [first_stream, first_stream + numjobs)
  std::uint32_t numjobs = 1;
  std::uint32_t groupid = 0;
  bool group_reporting = false;
  std::uint32_t iodepth = 1;
  // Logs (prefixes; empty: not written) and their averaging interval.
  std::string bw_log, iops_log, lat_log;
  Tick log_avg = 0;
  std::vector<double> percentiles;  // percentile_list, or fio's default list
  bool lat_percentiles = false;     // lat_ns gets percentiles too (as clat_ns)
};

struct FioWorkload {
  WorkloadSpec workload;
  std::vector<FioJobInfo> jobs;
  std::vector<std::pair<std::string, std::string>> global_options;
  // Host-only options the file gave, once each, in first-seen order.
  std::vector<std::string> ignored;
  // What the mapping did that fio would also say (a synchronous engine's
  // depth capped at 1), one line each.
  std::vector<std::string> notes;
  // What the user should check, one line each: an ioengine the simulator
  // does not know, run as the engines it treats alike.
  std::vector<std::string> warnings;
};

// Reads a job file and maps it onto a workload for a drive of `user_bytes`.
// Relative log and iolog paths resolve against `out_dir` (fio writes them
// in its working directory: here the results folder).
// `ns_bytes[id]`: namespace id's size (a job's filename=/dev/nvme0nN picks
// namespace N); empty: one namespace of `user_bytes`.
FioWorkload load_fio_workload(
    const std::string& path, std::uint64_t user_bytes, const std::string& out_dir,
    const std::function<std::optional<std::string>(const std::string&)>& getenv,
    const std::vector<std::uint64_t>& ns_bytes = {});

// The process environment, for load_fio_workload.
std::optional<std::string> process_env(const std::string& name);

}  // namespace ssdtwin
