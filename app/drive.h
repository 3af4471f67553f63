// A whole simulated SSD built from a drive config: engine, NAND back end,
// FTL, controller and host interface, wired together.
#pragma once

#include <memory>
#include <string>

#include "ftl/controller.h"
#include "ftl/ftl.h"
#include "ftl/namespaces.h"
#include "host/host_interface.h"
#include "nand/error_model.h"
#include "nand/nand_array.h"
#include "power/power_meter.h"
#include "power/power_states.h"
#include "sim/event_engine.h"
#include "sim/rng.h"

namespace ssdtwin {

class ConfigNode;
class OutputFile;
class Params;
struct ParamSection;

// What a drive-state snapshot stands for (its file header): a state is
// only ever used by a drive and preconditioning that would have made it.
struct SnapshotKey {
  std::string drive_json;         // the resolved drive config (every value the state depends on)
  std::string precondition_json;  // the workload's seed and leading precondition phases
  bool verify = false;            // verification mode keeps per-page versions in the state
};

struct SnapshotIo {
  std::uint64_t bytes = 0;
  double seconds = 0;  // wall time to write or read it
};

class Drive {
 public:
  // `root` is the `drive` node of a drive config. `errors`, when given,
  // replaces the error model the config names (tests inject faults so).
  Drive(const ConfigNode& root, bool verify, std::unique_ptr<ErrorModel> errors = nullptr);
  // The drive file's top-level keys, declared (sim/params.h).
  static const ParamSection& params();

  std::string name;
  EventEngine engine;
  Geometry geo;
  NandTiming timing;
  NandArray nand;
  std::unique_ptr<ErrorModel> errors;  // nand.errors (null: none)
  HostIfConfig hif_cfg;
  FtlConfig ftl_cfg;
  // The FTL the controller talks to (ftl.kind), and the page-mapped FTL
  // whose figures and fast paths the procedures use (null for another
  // kind: its drive runs timed phases only, refused elsewhere first).
  std::unique_ptr<FlashTranslation> translation;
  Ftl* ftl;
  // drive.namespaces (one of the whole capacity when absent).
  Namespaces namespaces;
  ControllerConfig ctrl_cfg;
  Controller controller;
  HostInterface hif;
  // drive.power (issue 16): null without a power model.
  std::unique_ptr<PowerConfig> power_cfg;
  std::unique_ptr<PowerMeter> power_meter;
  std::unique_ptr<PowerStates> power_states;

  std::uint64_t user_bytes() const { return ftl_cfg.user_bytes; }

  // Drive-state snapshots (issue 14): the whole state of a quiescent drive
  // (FTL tables and counters, controller timelines, the clock) and the
  // workload's random stream `rng`, written to `out` (committed here: the
  // file appears whole or not at all); and read
  // back into a freshly built drive, which then runs on bit for bit as the
  // saved one would. A file made for another key, damaged or cut short is
  // refused with a SnapshotError (sim/state_archive.h) naming what differs.
  SnapshotIo save_state(OutputFile& out, const SnapshotKey& key, Rng& rng);
  SnapshotIo load_state(const std::string& path, const SnapshotKey& key, Rng& rng);
  // The geometry line a snapshot's header carries.
  std::string geometry_text() const;

 private:
  Drive(const Params& root, bool verify, std::unique_ptr<ErrorModel> errors);
  void archive_state(StateArchive& ar, Rng& rng);
};

}  // namespace ssdtwin
