#include "nand/timing.h"

#include "sim/config.h"

namespace ssdtwin {

namespace {

ModeTiming read_mode(const ConfigNode& node, CellMode m) {
  ModeTiming t;
  t.present = true;
  const unsigned bits = bits_per_cell(m);
  t.tR = node.get_time_list("tR");
  t.tPROG = node.get_time_list("tPROG");
  t.tBERS = node.get_time("tBERS");
  t.one_shot = node.get_bool("one_shot", false);
  if (t.tR.size() != 1 && t.tR.size() != bits)
    node.fail("tR", "expected one time or one per page type (" + std::to_string(bits) + ")");
  if (t.tPROG.size() != 1 && t.tPROG.size() != bits)
    node.fail("tPROG", "expected one time or one per page type (" + std::to_string(bits) + ")");
  if (t.one_shot && t.tPROG.size() != 1)
    node.fail("tPROG", "a one-shot mode programs a whole wordline: expected a single time");
  for (Tick v : t.tR)
    if (v == 0) node.fail("tR", "expected a time above 0");
  for (Tick v : t.tPROG)
    if (v == 0) node.fail("tPROG", "expected a time above 0");
  return t;
}

// Read only when the block is there: a drive without it resolves to the
// config it had before suspend existed (resolved.json, snapshots' keys).
SuspendTiming read_suspend(const ConfigNode& node) {
  SuspendTiming s;
  s.program = node.get_bool("program", false);
  s.erase = node.get_bool("erase", false);
  s.suspend_latency = node.get_time("suspend_latency", 0);
  s.resume_latency = node.get_time("resume_latency", 0);
  // A suspension count lives in the transaction's byte (FlashTxn::suspends).
  s.max_per_operation = static_cast<std::uint32_t>(node.get_int("max_per_operation", 1, 0, 255));
  if (s.enabled() && s.max_per_operation == 0)
    node.fail("max_per_operation",
              "expected at least 1 while program or erase suspend is on (false turns it off)");
  return s;
}

}  // namespace

NandTiming NandTiming::from_config(const ConfigNode& nand, const Geometry& geo) {
  NandTiming t;
  t.bus_bytes_per_s = nand.get_rate_mts("bus") * 1e6;
  t.t_cmd = nand.get_time("t_cmd", 0);
  t.cache_program = nand.get_bool("cache_program", false);
  if (nand.has("suspend")) t.suspend = read_suspend(nand.child("suspend"));
  const ConfigNode timing = nand.child("timing");
  for (CellMode m : {CellMode::kSlc, CellMode::kMlc, CellMode::kTlc, CellMode::kQlc}) {
    if (bits_per_cell(m) > bits_per_cell(geo.native_mode)) continue;
    const std::string name = cell_mode_name(m);
    if (timing.has(name)) t.mode[bits_per_cell(m)] = read_mode(timing.child(name), m);
  }
  if (!t.of(geo.native_mode).present)
    timing.fail(cell_mode_name(geo.native_mode), "timing for the native cell mode is required");
  return t;
}

}  // namespace ssdtwin
