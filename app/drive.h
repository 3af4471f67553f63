// A whole simulated SSD built from a drive config: engine, NAND back end,
// FTL, controller and host interface, wired together.
#pragma once

#include <memory>
#include <string>

#include "ftl/controller.h"
#include "ftl/ftl.h"
#include "host/host_interface.h"
#include "nand/error_model.h"
#include "nand/nand_array.h"
#include "sim/event_engine.h"

namespace ssdtwin {

class ConfigNode;

class Drive {
 public:
  // `root` is the `drive` node of a drive config. `errors`, when given,
  // replaces the error model the config names (tests inject faults so).
  Drive(const ConfigNode& root, bool verify, std::unique_ptr<ErrorModel> errors = nullptr);

  std::string name;
  EventEngine engine;
  Geometry geo;
  NandTiming timing;
  NandArray nand;
  std::unique_ptr<ErrorModel> errors;  // nand.errors (null: none)
  HostIfConfig hif_cfg;
  FtlConfig ftl_cfg;
  Ftl ftl;
  ControllerConfig ctrl_cfg;
  Controller controller;
  HostInterface hif;

  std::uint64_t user_bytes() const { return ftl_cfg.user_bytes; }
};

}  // namespace ssdtwin
