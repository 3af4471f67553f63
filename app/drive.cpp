#include "app/drive.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "ftl/ftl_kinds.h"
#include "ftl/ftl_params.h"
#include "sim/config.h"
#include "sim/output_file.h"
#include "sim/params.h"
#include "sim/state_archive.h"

namespace ssdtwin {

const ParamSection& Drive::params() {
  static const ParamSection kSection{
      "drive",
      "A drive: its name, the capacity it offers the host, and one map per part (NAND, host "
      "interface, controller, FTL, namespaces, power).",
      {
          param::text("name", nullptr, "the drive's name, as results name it"),
          param::bytes("user_capacity", nullptr,
                       "capacity the host sees, rounded down to whole 4KiB logical pages; less "
                       "than 8TiB (16TiB zoned) and, with the spare area GC needs, less than the "
                       "raw flash"),
          param::map("nand", "the NAND flash: geometry, timings, errors and bad blocks"),
          param::map("host", "the host interface: NVMe over PCIe or SATA, queues and link"),
          param::map("controller", "the controller: firmware cores and times, write buffer, ECC"),
          param::map("ftl", "the flash translation layer: mapping, GC, caches, RAIN, power loss"),
          param::maps("namespaces",
                      "NVMe namespaces, at most 16, whose ranges may not overlap (absent: one "
                      "namespace, id 1, of the whole user capacity)"),
          param::map("power",
                     "the power model: what each part draws and the drive's power "
                     "states (absent: none)"),
      }};
  return kSection;
}

Drive::Drive(const ConfigNode& root, bool verify, std::unique_ptr<ErrorModel> given_errors)
    : Drive(Params(root, params()), verify, std::move(given_errors)) {}

Drive::Drive(const Params& root, bool verify, std::unique_ptr<ErrorModel> given_errors)
    : name(root.text("name")),
      geo(Geometry::from_config(root.map("nand"))),
      timing(NandTiming::from_config(root.map("nand"), geo)),
      nand(engine, geo, timing),
      errors(given_errors ? std::move(given_errors) : make_error_model(root.map("nand"))),
      hif_cfg(HostIfConfig::from_config(root.map("host"))),
      ftl_cfg(
          read_ftl_config(root, geo, timing.of(CellMode::kSlc).present, hif_cfg.hmb_round_trip)),
      translation(make_ftl(ftl_cfg.kind, FtlParts{engine, nand, ftl_cfg, verify, errors.get()})),
      ftl(page_mapped(*translation)),
      namespaces(Namespaces::from_config(root, ftl_cfg.user_bytes, ftl_cfg.fdp.handles())),
      ctrl_cfg(ControllerConfig::from_config(root.map("controller"))),
      controller(engine, *translation, ctrl_cfg),
      hif(engine, hif_cfg, controller) {
  nand.add_observer(&controller);
  controller.set_namespaces(&namespaces);
  // Zones are an NVMe command set (ZNS); SATA's zoned commands (ZAC) are
  // not modelled.
  if (translation->zoned() && std::strcmp(hif_cfg.protocol->name(), "nvme") != 0)
    root.map("host").fail(
        "interface", "expected nvme with ftl.kind zoned (the NVMe Zoned Namespace command set)");
  if (ftl)
    ftl->count_by_namespace(namespaces);
  else if (namespaces.size() > 1)
    root.fail("namespaces", "expected none with ftl.kind " + ftl_cfg.kind +
                                " (its zones span the drive's one namespace)");
  std::optional<PowerConfig> pc;
  if (root.has("power")) pc = PowerConfig::from_config(root.map("power"));
  if (pc) {
    power_cfg = std::make_unique<PowerConfig>(std::move(*pc));
    power_meter =
        std::make_unique<PowerMeter>(engine, *power_cfg, geo.dies(), timing.bus_bytes_per_s);
    power_states =
        std::make_unique<PowerStates>(engine, *power_cfg, *power_meter, geo.dies(), ctrl_cfg.cores,
                                      [this](std::uint32_t n) { nand.set_op_limit(n); });
    nand.set_activity(power_meter.get());
    controller.set_activity(power_meter.get());
    hif.set_power_gate(power_states.get());
  }
  // The buffer must hold a program unit for a die while the previous one
  // is still being programmed, or writes would stall with nothing to flush.
  const std::uint64_t unit_bytes = std::uint64_t{timing.pages_per_program(geo.native_mode)} *
                                   geo.slots_per_die_page() * kSectorBytes;
  // Zoned: each active zone may hold a partial unit in the buffer, and a
  // unit more must fit for any zone to reach a whole one.
  if (translation->zoned() &&
      ftl_cfg.write_buffer_slots < (ftl_cfg.zoned.max_active + 1ull) * unit_bytes / kSectorBytes)
    root.map("controller")
        .fail("write_buffer", "expected at least a program unit per active zone and one more (" +
                                  std::to_string((ftl_cfg.zoned.max_active + 1ull) * unit_bytes) +
                                  " bytes, ftl.zoned.max_active_zones + 1 units)");
  if (ftl_cfg.write_buffer_slots < 2 * unit_bytes / kSectorBytes)
    root.map("controller")
        .fail("write_buffer",
              "expected at least two program units (" + std::to_string(2 * unit_bytes) + " bytes)");
}

namespace {

// The file starts with these 8 bytes and a format version; a reader of
// another version refuses the file rather than guess at its layout.
constexpr char kSnapshotMagic[8] = {'S', 'S', 'D', 'T', 'S', 'N', 'A', 'P'};
// 2: mapping tables stored plus one; 3: map cache by slot; 4: flash writes by
// namespace; 5: NAND suspend counts; 6: idle timers with their arm order
// (sim/timer.h); 7: FDP's placement state (each page's handle, reclaim units'
// fill, the handles each erase unit holds); 8: GC pacing with the relocation
// engine's state; 9: the forward map as a directory and its leaves.
constexpr std::uint32_t kSnapshotVersion = 9;

void archive_string(StateArchive& ar, std::string& s) {
  const std::size_t n = ar.length(s.size(), false);
  if (ar.loading()) s.resize(n);
  ar.raw(s.data(), s.size());
}

// "drive.nand.timing.tlc.tPROG is 700000 in the snapshot, 2000000 here":
// the first value where two resolved configs differ.
std::string first_difference(const std::string& saved, const std::string& here,
                             const std::string& prefix = "") {
  using Json = nlohmann::json;
  const Json a = Json::parse(saved, nullptr, false), b = Json::parse(here, nullptr, false);
  if (a.is_discarded() || b.is_discarded()) return "the configs differ";
  const Json patch = Json::diff(a, b);
  if (patch.empty()) return "the configs differ";
  const std::string path = patch[0]["path"].get<std::string>();
  const Json::json_pointer where(path);
  std::string key = prefix + path;
  std::replace(key.begin(), key.end(), '/', '.');
  if (!key.empty() && key[0] == '.') key.erase(0, 1);
  auto value = [&](const Json& j) { return j.contains(where) ? j.at(where).dump() : "absent"; };
  return key + " is " + value(a) + " in the snapshot, " + value(b) + " here";
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

std::string Drive::geometry_text() const {
  return std::to_string(geo.channels) + " channels x " + std::to_string(geo.dies_per_channel) +
         " dies x " + std::to_string(geo.planes) + " planes x " +
         std::to_string(geo.blocks_per_plane) + " blocks x " + std::to_string(geo.pages_per_block) +
         " " + cell_mode_name(geo.native_mode) + " pages of " + std::to_string(geo.page_size) +
         " B, " + std::to_string(user_bytes()) + " user bytes";
}

void Drive::archive_state(StateArchive& ar, Rng& rng) {
  // The engine holds no events of its own at a quiescent point but the
  // FTL's idle timers (checked on saving), rescheduled after loading.
  Tick now = engine.now();
  NandStats nand_stats = nand.stats();
  ar.pods(now, rng, nand_stats);
  ftl->archive(ar);
  controller.archive(ar);
  ar.seal();
  if (!ar.loading()) return;
  // What follows acts on the state: only on one whole and past its checksum.
  ar.end();
  engine.advance_to(now);
  nand.restore_stats(nand_stats);
  ftl->rearm_timers(ar);
}

SnapshotIo Drive::save_state(OutputFile& out, const SnapshotKey& key, Rng& rng) {
  const auto start = std::chrono::steady_clock::now();
  if (!ftl) throw SnapshotError("--save-state: drive-state snapshots need ftl.kind page_mapped");
  if (engine.pending() != ftl->armed_timers())
    throw std::logic_error("drive-state snapshot: events pending beyond the FTL's idle timers");
  for (std::uint32_t d = 0; d < geo.dies(); ++d)
    if (!nand.die_idle(d) || nand.array_busy_until(d) > engine.now())
      throw std::logic_error("drive-state snapshot: a die is still busy");
  StateArchive ar(out);
  char magic[8];
  std::memcpy(magic, kSnapshotMagic, sizeof magic);
  std::uint32_t version = kSnapshotVersion;
  ar.raw(magic, sizeof magic);
  ar.pod(version);
  std::string geometry = geometry_text(), drive_json = key.drive_json, pre = key.precondition_json;
  bool verify = key.verify;
  archive_string(ar, geometry);
  archive_string(ar, drive_json);
  archive_string(ar, pre);
  ar.pod(verify);
  ar.seal();
  archive_state(ar, rng);
  out.commit();
  return {ar.bytes_done(), seconds_since(start)};
}

SnapshotIo Drive::load_state(const std::string& path, const SnapshotKey& key, Rng& rng) {
  const auto start = std::chrono::steady_clock::now();
  if (!ftl) throw SnapshotError("--load-state: drive-state snapshots need ftl.kind page_mapped");
  if (ftl->map().logical_pages() == 0 || !ftl->quiescent() || engine.now() != 0 || !engine.empty())
    throw std::logic_error("drive-state snapshot: load into a freshly built drive only");
  struct stat st {};
  // Before opening: a FIFO would block the open, and a folder opens but
  // reads as nothing.
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw SnapshotError(path + (S_ISDIR(st.st_mode) ? ": is a folder" : ": is not a regular file") +
                        "; --load-state expects a snapshot file written by --save-state");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!in || ::fstat(::fileno(in.get()), &st) != 0)
    throw SnapshotError(path + ": cannot read the snapshot: " + std::strerror(errno));
  StateArchive ar(in.get(), static_cast<std::uint64_t>(st.st_size), path);
  char magic[8];
  std::uint32_t version = 0;
  if (static_cast<std::uint64_t>(st.st_size) < sizeof magic ||
      (ar.raw(magic, sizeof magic), std::memcmp(magic, kSnapshotMagic, sizeof magic) != 0))
    throw SnapshotError(path + ": not an ssdtwin drive-state snapshot (no SSDTSNAP magic)");
  ar.pod(version);
  if (version != kSnapshotVersion)
    throw SnapshotError(path + ": snapshot format version " + std::to_string(version) +
                        ", this ssdtwin reads version " + std::to_string(kSnapshotVersion) +
                        ": make it again with --save-state");
  std::string geometry, drive_json, pre;
  bool verify = false;
  archive_string(ar, geometry);
  archive_string(ar, drive_json);
  archive_string(ar, pre);
  ar.pod(verify);
  ar.seal();
  if (geometry != geometry_text())
    throw SnapshotError(path + ": snapshot of another drive geometry: " + geometry +
                        " in the snapshot, " + geometry_text() + " here");
  if (drive_json != key.drive_json)
    throw SnapshotError(path + ": snapshot of another drive config: " +
                        first_difference(drive_json, key.drive_json));
  if (pre != key.precondition_json)
    throw SnapshotError(path + ": snapshot made by other preconditioning: " +
                        first_difference(pre, key.precondition_json, "workload"));
  if (verify != key.verify)
    throw SnapshotError(path + std::string(": snapshot made ") + (verify ? "with" : "without") +
                        " --verify, this run is " + (key.verify ? "with" : "without") + " it");
  Rng loaded = rng;
  archive_state(ar, loaded);
  rng = loaded;
  return {ar.bytes_done(), seconds_since(start)};
}

}  // namespace ssdtwin
