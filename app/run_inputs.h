// A run's inputs (drive config, workload file, --set overrides) as `ssdtwin
// run` and `check` read them, with every check that can be made before
// anything simulates. One place, so that `check`, a run and a sweep's
// up-front check of its points refuse the same inputs with the same message.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/drive.h"
#include "host/workload/workload.h"
#include "sim/config.h"

namespace ssdtwin {

struct RunInputs {
  std::unique_ptr<ConfigDoc> drive_doc;
  std::unique_ptr<ConfigDoc> workload_doc;  // null: no workload file (none, or an fio job)
  std::unique_ptr<Drive> drive;
  WorkloadSpec workload;
  double build_seconds = 0;  // building the drive (a 4 TB drive's tables take a while)
};

// The drive config with the overrides, built. Throws ConfigError.
RunInputs read_drive(const std::string& drive_file, const std::vector<std::string>& sets,
                     bool verify);

// The workload file with the overrides, read for in.drive; every key of it
// must be used. Throws ConfigError.
void read_workload(RunInputs& in, const std::string& workload_file,
                   const std::vector<std::string>& sets);

// The checks of the whole before the run: every drive key used, each
// override for drive. or workload., the workload's faults within the
// drive's geometry, and power states the drive has (warning, if `warn`, of
// power settings a drive without a power model ignores). Throws ConfigError
// naming the file, line and key.
void check_run_inputs(const RunInputs& in, const std::vector<std::string>& sets, bool warn = true);

}  // namespace ssdtwin
