#include "nand/timing.h"

#include "sim/config.h"
#include "sim/params.h"

namespace ssdtwin {

namespace {

const ParamSection kNandSection{
    "drive.nand",
    "",
    {
        param::rate("bus", nullptr,
                    "channel transfer rate of the 8-bit bus, in MT/s (one byte per transfer)"),
        param::time("t_cmd", "0", "command and address cycles on the channel per operation"),
        param::flag("cache_program", "false",
                    "cache programming: the next program's data-in overlaps the current tPROG"),
        param::map("suspend",
                   "program and erase suspend for host reads (optional; absent: a run as before "
                   "suspend existed)"),
        param::map("timing",
                   "array timings, one map per cell mode the part runs in; the native mode's is "
                   "required"),
    }};

const ParamSection kSuspendSection{
    "drive.nand.suspend",
    "Program and erase suspend: a host read may suspend the program or erase in its die's "
    "array, read, and let the operation resume later by the suspension's length.",
    {
        param::flag("program", "false", "programs may be suspended"),
        param::flag("erase", "false", "erases may be suspended"),
        param::time("suspend_latency", "0",
                    "from the suspend command until the die takes the read (tPSUS / tESUS; the "
                    "command's cycles included)"),
        param::time("resume_latency", "0",
                    "added when the operation resumes: it ends this much later on top of the "
                    "suspension"),
        param::integer("max_per_operation", "1", 0, 255, "suspensions",
                       "suspensions one program or erase may take (at least 1 while on); then "
                       "reads wait for it as without suspend"),
    }};

const ParamSection kTimingSection{
    "drive.nand.timing",
    "Array timings per cell mode: the native mode's, and the SLC mode's for a part whose blocks "
    "may run one bit per cell (ftl.slc_cache). A mode above the native one is an unknown key.",
    {
        param::map("slc", "timings of one bit per cell: an SLC part, or SLC-mode blocks"),
        param::map("mlc", "timings of two bits per cell"),
        param::map("tlc", "timings of three bits per cell"),
        param::map("qlc", "timings of four bits per cell"),
    }};

// The keys of every mode's map, declared once for the four paths.
std::vector<Param> mode_params() {
  return {
      param::time_list("tR", nullptr,
                       "array read time: one time, or one per page type (page index % bits "
                       "per cell: lower, upper, ... page)"),
      param::time_list("tPROG", nullptr,
                       "array program time: one time, or one per page type (a single time in "
                       "a one-shot mode)"),
      param::time("tBERS", nullptr, "block erase time"),
      param::flag("one_shot", "false",
                  "one program transfers and programs every page of a wordline in one tPROG "
                  "(3D TLC and QLC)"),
  };
}

const ParamSection kModeSections[] = {
    {"drive.nand.timing.slc", "SLC-mode timings: one bit per cell.", mode_params()},
    {"drive.nand.timing.mlc", "MLC-mode timings: two bits per cell.", mode_params()},
    {"drive.nand.timing.tlc", "TLC-mode timings: three bits per cell.", mode_params()},
    {"drive.nand.timing.qlc", "QLC-mode timings: four bits per cell.", mode_params()},
};

const ParamSection& mode_section(CellMode m) { return kModeSections[bits_per_cell(m) - 1]; }

ModeTiming read_mode(const Params& node, CellMode m) {
  ModeTiming t;
  t.present = true;
  const unsigned bits = bits_per_cell(m);
  t.tR = node.time_list("tR");
  t.tPROG = node.time_list("tPROG");
  t.tBERS = node.time("tBERS");
  t.one_shot = node.flag("one_shot");
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
SuspendTiming read_suspend(const Params& node) {
  SuspendTiming s;
  s.program = node.flag("program");
  s.erase = node.flag("erase");
  s.suspend_latency = node.time("suspend_latency");
  s.resume_latency = node.time("resume_latency");
  // A suspension count lives in the transaction's byte (FlashTxn::suspends).
  s.max_per_operation = static_cast<std::uint32_t>(node.integer("max_per_operation"));
  if (s.enabled() && s.max_per_operation == 0)
    node.fail("max_per_operation",
              "expected at least 1 while program or erase suspend is on (false turns it off)");
  return s;
}

}  // namespace

std::vector<const ParamSection*> NandTiming::params() {
  return {&kNandSection,     &kSuspendSection,  &kTimingSection,  &kModeSections[0],
          &kModeSections[1], &kModeSections[2], &kModeSections[3]};
}

NandTiming NandTiming::from_config(const ConfigNode& node, const Geometry& geo) {
  const Params nand(node, kNandSection);
  NandTiming t;
  t.bus_bytes_per_s = nand.rate("bus") * 1e6;
  t.t_cmd = nand.time("t_cmd");
  t.cache_program = nand.flag("cache_program");
  if (nand.has("suspend")) t.suspend = read_suspend(nand.child("suspend", kSuspendSection));
  const Params timing = nand.child("timing", kTimingSection);
  for (CellMode m : {CellMode::kSlc, CellMode::kMlc, CellMode::kTlc, CellMode::kQlc}) {
    if (bits_per_cell(m) > bits_per_cell(geo.native_mode)) continue;
    const std::string name = cell_mode_name(m);
    if (timing.has(name.c_str()))
      t.mode[bits_per_cell(m)] = read_mode(timing.child(name.c_str(), mode_section(m)), m);
  }
  if (!t.of(geo.native_mode).present)
    timing.fail(cell_mode_name(geo.native_mode), "timing for the native cell mode is required");
  return t;
}

}  // namespace ssdtwin
