// Raw bit errors of NAND cells: a named, pluggable model (nand.errors.model)
// of the raw bit error rate (RBER) a read sees, from the wear and age of the
// block it reads. What the controller does with those errors (ECC decode,
// read retry, RAIN rebuild) is firmware: ftl/recovery/read_recovery.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nand/geometry.h"
#include "sim/policy_table.h"

namespace ssdtwin {

class ConfigNode;
struct ParamSection;

// What a read's error rate depends on.
struct CellWear {
  double pe_cycles = 0;            // program/erase cycles of the block
  double retention_days = 0;       // time since the block was programmed
  double reads = 0;                // reads of the block since it was erased (read disturb)
  CellMode mode = CellMode::kTlc;  // mode the block is programmed in
  // Where: models may vary by page type or location (weak wordlines), and
  // injected faults name pages.
  std::uint32_t die = 0, block = 0, page = 0;
};

class ErrorModel {
 public:
  virtual ~ErrorModel() = default;
  // Fraction of bits read wrong, before any correction.
  virtual double rber(const CellWear& w) const = 0;
  // Wear every block starts with (nand.errors.age): lets a run start at end
  // of life without simulating years of writes.
  double age_pe_cycles = 0;
  double age_retention_days = 0;
  // Seed of the error draws: a stream of their own, so turning errors on
  // does not change the workload's or GC's random choices.
  std::uint64_t seed = 1;
};

using ErrorModelInfo = PolicyInfo<ErrorModel, const ConfigNode&>;
const std::vector<ErrorModelInfo>& error_models();
std::vector<std::string> error_model_names();

// The model `nand.errors.model` names, configured from the map of the same
// name; nullptr for `none` (the default: reads never see errors). `nand`
// is the drive's nand map.
std::unique_ptr<ErrorModel> make_error_model(const ConfigNode& nand);
// Its keys (nand.errors and each model's map), declared (sim/params.h).
std::vector<const ParamSection*> error_model_params();

}  // namespace ssdtwin
