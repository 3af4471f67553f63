#include "app/run_metrics.h"

#include <optional>
#include <utility>

#include "app/block_metrics.h"
#include "app/metric_json.h"
#include "app/report_procedures.h"
#include "app/sweep_keys.h"
#include "ftl/zoned_ftl.h"

namespace ssdtwin {

namespace {

using Json = nlohmann::ordered_json;
using V = MetricValue;

// --- The phase's header --------------------------------------------------
const PhaseSpec& spec(const PhaseView& v) { return *v.phase.spec; }
template <auto M>
V spec_int(const PhaseView& v, int) {
  return V::integer(spec(v).*M);
}
template <auto M>
V spec_bool(const PhaseView& v, int) {
  return V::boolean(spec(v).*M);
}

std::vector<PhaseMetric> build_phase_header() {
  return {
      {"name", "name", "the phase, as the workload names it",
       [](const PhaseView& v, int) { return V::of_text(spec(v).name); }},
      {"precondition", "flag", "a preconditioning phase (reported apart from measured ones)",
       spec_bool<&PhaseSpec::precondition>},
      {"rw", "name", "its IO pattern (the workload's rw)",
       [](const PhaseView& v, int) { return V::of_text(rw_kind_name(spec(v).rw)); }},
      {"bs", "B", "block size (with bssplit: the largest of its sizes)", spec_int<&PhaseSpec::bs>},
      {"iodepth", "commands", "commands kept outstanding", spec_int<&PhaseSpec::iodepth>},
      {"offset", "B", "start of the LBA range it addresses", spec_int<&PhaseSpec::offset>},
      {"span", "B", "size of that range", spec_int<&PhaseSpec::span>},
      {"idle_after_seconds", "s", "idle time after the phase (idle_after)",
       [](const PhaseView& v, int) { return V::real(to_seconds(spec(v).idle_after)); }},
      {"fast", "flag", "fast preconditioning: state only, no simulated time",
       spec_bool<&PhaseSpec::fast>},
  };
}

// --- Phase families: keys named by the configuration ---------------------
// "50us", "1ms": a latency bound as a key.
std::string time_label(Tick t) {
  if (t % kMs == 0) return std::to_string(t / kMs) + "ms";
  if (t % kUs == 0) return std::to_string(t / kUs) + "us";
  return std::to_string(t) + "ns";
}

V share_under(const PhaseRow& r, int op) {
  const LatencyHistogram& h = r.phase.phase.result.latency[op];
  if (h.count() == 0) return V::absent();
  return V::real(round_decimals(h.share_below(r.phase.workload.latency_thresholds[r.row]), 6));
}

// The power.stateN_s times again, by the drive's names for its states.
V time_in_state(const PhaseRow& r, int) {
  const PhaseReport& p = r.phase.phase;
  return V::real(to_seconds(p.power_after.states.time_in_state[r.row] -
                            p.power_before.states.time_in_state[r.row]));
}

std::vector<PhaseFamily> build_phase_families() {
  PhaseFamily shares{
      "per op with IOs, one key per workload latency_thresholds bound ('50us', '1ms')",
      {},
      [](const PhaseView&) { return true; },
      [](const PhaseView& v) { return v.workload.latency_thresholds.size(); },
      [](const PhaseView& v, std::size_t row) {
        return time_label(v.workload.latency_thresholds[row]);
      }};
  for (int op = 0; op < PhaseResult::kOps; ++op)
    shares.metrics.push_back({std::string(kOpNames[op]) + ".share_under.*", "share",
                              "share of the op's IOs that completed within the bound (6 places)",
                              share_under, op});
  PhaseFamily states{
      "a drive with a power model: one key per power state, by the drive's name for it",
      {{"power.time_in_state_s.*", "s", "simulated time the drive spent in the state",
        time_in_state}},
      [](const PhaseView& v) { return v.phase.has_power; },
      [](const PhaseView& v) { return v.drive.power_cfg->states.size(); },
      [](const PhaseView& v, std::size_t row) { return v.drive.power_cfg->states[row].name; }};
  return {shares, states};
}

// --- The run's header ----------------------------------------------------
std::vector<RunMetric> header_table() {
  return {
      {"ssdtwin_version", "version", "the simulator's version (the CMake project's)",
       [](const RunView& v, int) { return V::of_text(v.version); }},
      {"drive", "name", "the drive, as its file names it",
       [](const RunView& v, int) { return V::of_text(v.drive.name); }},
      {"workload", "name", "the workload, as its file names it",
       [](const RunView& v, int) { return V::of_text(v.workload.name); }},
      {"drive_file", "path", "the drive file (--drive)",
       [](const RunView& v, int) { return V::of_text(v.meta.drive_file); }},
      {"workload_file", "path", "the workload file (--workload)",
       [](const RunView& v, int) { return V::of_text(v.meta.workload_file); }},
      {"overrides", "settings", "the --set settings, in command-line order",
       [](const RunView& v, int) { return V::of_json(Json(v.meta.overrides).dump()); }},
  };
}

// --- The drive model as built --------------------------------------------
// A zoned namespace's LBA space is larger than what its zones hold: the
// spare flash is over what the zones can take.
V over_provisioning(const RunView& v, int) {
  const ZonedConfig& zc = v.drive.ftl_cfg.zoned;
  const std::uint64_t holds = v.drive.translation->zoned()
                                  ? std::uint64_t{zc.zones} * zc.capacity_slots * kSectorBytes
                                  : v.drive.user_bytes();
  return V::real((static_cast<double>(v.drive.geo.raw_bytes()) - static_cast<double>(holds)) /
                 static_cast<double>(holds));
}
// The page-mapped FTL's figures; a zoned drive has none.
V ftl_figure(const RunView& v, int which) {
  if (!v.drive.ftl) return V::absent();
  const BlockManager& bm = v.drive.ftl->blocks();
  switch (which) {
    case 0:
      return V::boolean(v.drive.ftl->map_cache_whole_table());
    case 1:
      return V::integer(bm.bad_blocks());
    case 2: {
      std::uint64_t spares = 0;
      for (std::uint32_t die = 0; die < bm.dies(); ++die) spares += bm.spare_blocks(die);
      return V::integer(spares);
    }
    case 3:
      return V::integer(bm.unreplaced_bad_blocks());
    default:
      return V::integer(v.drive.ftl_cfg.map.access_time);
  }
}

std::vector<RunMetric> drive_model_table() {
  return {
      {"raw_bytes", "B", "flash capacity",
       [](const RunView& v, int) { return V::integer(v.drive.geo.raw_bytes()); }},
      {"user_bytes", "B", "capacity the host addresses",
       [](const RunView& v, int) { return V::integer(v.drive.user_bytes()); }},
      {"over_provisioning", "ratio",
       "flash over what the host can store, minus one (a zoned drive: over its zones' capacity)",
       over_provisioning},
      {"dies", "dies", "NAND dies",
       [](const RunView& v, int) { return V::integer(v.drive.geo.dies()); }},
      {"host_link", "name", "the host link, as described",
       [](const RunView& v, int) { return V::of_text(v.drive.hif_cfg.link.description); }},
      {"link_payload_mb_per_s", "MB/s", "the link's payload bandwidth",
       [](const RunView& v, int) {
         return V::real(v.drive.hif_cfg.link.payload_bytes_per_s() / 1e6);
       }},
      {"device_queue_slots", "commands", "commands the drive holds at once",
       [](const RunView& v, int) { return V::integer(v.drive.hif_cfg.device_slots); }},
      {"map_cache_whole_table", "flag", "the map cache holds the whole mapping table (page FTL)",
       ftl_figure, 0},
      {"bad_blocks", "blocks", "bad blocks at the end of the run (page FTL)", ftl_figure, 1},
      {"spare_blocks_left", "blocks", "spare blocks left to replace them (page FTL)", ftl_figure,
       2},
      {"unreplaced_bad_blocks", "blocks", "bad blocks no spare replaced (page FTL)", ftl_figure, 3},
      {"error_model", "flag", "a NAND error model is configured",
       [](const RunView& v, int) { return V::boolean(v.drive.errors != nullptr); }},
      {"map_lookup_ns", "ns", "a mapping-table lookup's time (page FTL)", ftl_figure, 4},
  };
}

// --- A zoned drive's layout and its device-side counters over the run ----
const ZonedFtl& zoned(const RunView& v) {
  return dynamic_cast<const ZonedFtl&>(*v.drive.translation);
}
template <auto M>
V zone_layout(const RunView& v, int) {
  return V::integer(zoned(v).layout().*M);
}
template <auto M>
V zone_bytes(const RunView& v, int) {
  return V::integer(zoned(v).layout().*M * kSectorBytes);
}
template <auto M>
V zone_count(const RunView& v, int) {
  return V::integer(zoned(v).zone_stats().*M);
}
V zone_errors(const RunView& v, int status) {
  return V::integer(zoned(v).zone_stats().errors[status]);
}

std::vector<RunMetric> zoned_table() {
  std::vector<RunMetric> t = {
      {"zones", "zones", "zones of the namespace", zone_layout<&ZonedConfig::zones>},
      {"zone_size_bytes", "B", "a zone's LBA range", zone_bytes<&ZonedConfig::zone_slots>},
      {"zone_capacity_bytes", "B", "what a zone holds", zone_bytes<&ZonedConfig::capacity_slots>},
      {"max_open_zones", "zones", "the open-zone limit", zone_layout<&ZonedConfig::max_open>},
      {"max_active_zones", "zones", "the active-zone limit", zone_layout<&ZonedConfig::max_active>},
      {"stripe_dies", "dies", "dies a zone is striped over",
       zone_layout<&ZonedConfig::stripe_dies>},
      {"die_blocks_per_zone", "blocks", "erase blocks a zone takes",
       [](const RunView& v, int) {
         const ZonedConfig& c = zoned(v).layout();
         return V::integer(std::uint64_t{c.blocks_per_die} * c.stripe_dies);
       }},
      {"appends", "commands", "Zone Append commands", zone_count<&ZoneStats::appends>},
      {"implicit_opens", "zones", "zones a write opened", zone_count<&ZoneStats::implicit_opens>},
      {"explicit_opens", "zones", "zones an Open command opened",
       zone_count<&ZoneStats::explicit_opens>},
      {"implicit_closes", "zones", "zones closed to open another",
       zone_count<&ZoneStats::implicit_closes>},
      {"closes", "zones", "zones a Close command closed", zone_count<&ZoneStats::closes>},
      {"finishes", "zones", "zones finished", zone_count<&ZoneStats::finishes>},
      {"resets", "zones", "zones reset", zone_count<&ZoneStats::resets>},
      {"reset_erases", "erases", "block erases the resets cost",
       zone_count<&ZoneStats::reset_erases>},
  };
  for (std::size_t k = 1; k < kCmdStatuses; ++k)
    t.push_back({std::string("errors.") + cmd_status_name(static_cast<CmdStatus>(k)), "commands",
                 "commands that completed with this status", zone_errors, static_cast<int>(k)});
  return t;
}

// --- The run's cost: wall time, events, memory ---------------------------
double since(const RunView& v, const std::optional<std::chrono::steady_clock::time_point>& t) {
  return t ? std::chrono::duration<double>(v.now - *t).count() : 0.0;
}
double write_seconds(const RunView& v) { return since(v, v.meta.write_started); }
std::uint64_t host_ios(const RunView& v) {
  std::uint64_t n = 0;
  for (const auto& p : v.report.phases)
    for (int op = 0; op < PhaseResult::kOps; ++op) n += p.result.ios[op];
  return n;
}
// The rates are of the simulation alone.
V per_wall_second(double n, const RunView& v) {
  const double wall = v.report.wall_seconds;
  return V::real(wall > 0 ? n / wall : 0.0);
}

std::vector<RunMetric> run_table() {
  return {
      {"build_seconds", "s", "wall time to build the drive",
       [](const RunView& v, int) { return V::real(v.meta.build_seconds); }, 0, true},
      {"simulate_seconds", "s", "wall time simulating",
       [](const RunView& v, int) { return V::real(v.report.wall_seconds); }, 0, true},
      {"write_seconds", "s", "wall time writing the results (up to summary.json)",
       [](const RunView& v, int) { return V::real(write_seconds(v)); }, 0, true},
      {"wall_seconds", "s", "wall time of the whole command (without a start: the parts' sum)",
       [](const RunView& v, int) {
         return V::real(v.meta.started
                            ? since(v, v.meta.started)
                            : v.meta.build_seconds + v.report.wall_seconds + write_seconds(v));
       },
       0, true},
      {"events", "events", "simulation events processed",
       [](const RunView& v, int) { return V::integer(v.report.events); }},
      {"events_per_wall_second", "events/s", "events per wall second simulating",
       [](const RunView& v, int) {
         return per_wall_second(static_cast<double>(v.report.events), v);
       },
       0, true},
      {"sim_seconds", "s", "simulated time at the run's end",
       [](const RunView& v, int) { return V::real(to_seconds(v.report.sim_end)); }},
      {"host_ios", "IOs", "host IOs completed, all phases and ops",
       [](const RunView& v, int) { return V::integer(host_ios(v)); }},
      {"host_ios_per_wall_second", "IOs/s", "host IOs per wall second simulating",
       [](const RunView& v, int) { return per_wall_second(static_cast<double>(host_ios(v)), v); },
       0, true},
      {"peak_rss_mib", "MiB", "peak resident memory of the process",
       [](const RunView&, int) { return V::real(peak_rss_mib()); }, 0, true},
      {"ftl_table_mib", "MiB", "the page FTL's mapping table (0 without one)",
       [](const RunView& v, int) {
         return V::real(v.drive.ftl ? static_cast<double>(v.drive.ftl->table_bytes()) / (1 << 20)
                                    : 0.0);
       }},
      {"failure", "text", "why the run stopped early (only when it did)",
       [](const RunView& v, int) {
         return v.report.failure.empty() ? V::absent() : V::of_text(v.report.failure);
       }},
  };
}

// --- Verification (--verify, or a workload with power cuts) ---------------
template <auto M>
V verified(const RunView& v, int) {
  return V::integer(v.verify->*M);
}

std::vector<RunMetric> verify_table() {
  return {
      {"passed", "flag", "no wrong data, and the cuts lost only what the model held volatile",
       [](const RunView& v, int) { return V::boolean(v.verify->passed()); }},
      {"checks", "reads", "reads checked against the latest write",
       verified<&VerifySummary::checks>},
      {"wrong_data", "reads", "reads that returned other data than the latest write",
       verified<&VerifySummary::wrong_data>},
      {"reads_failed", "reads", "host 4 KiB reads that failed (lost data, reported as lost)",
       verified<&VerifySummary::reads_failed>},
      {"power_cut_pages_lost", "pages", "accepted writes the power cuts lost",
       verified<&VerifySummary::cut_pages_lost>},
      {"power_cut_loss_allowed", "pages", "of them volatile at the cut, as the model allows",
       verified<&VerifySummary::cut_loss_allowed>},
  };
}

// --- Power cuts: one row per cut -----------------------------------------
const PowerCutReport& cut(const RunView& v) { return v.report.power_cuts[v.row]; }
template <auto M>
V cut_count(const RunView& v, int) {
  return V::integer(cut(v).account.*M);
}
template <auto M>
V recovery_count(const RunView& v, int) {
  return V::integer(cut(v).recovery.*M);
}

std::vector<RunMetric> power_cuts_table() {
  return {
      {"at_s", "s", "when the cut fell, on the run's clock",
       [](const RunView& v, int) { return V::real(to_seconds(cut(v).at)); }},
      {"phase", "name", "the phase it interrupted",
       [](const RunView& v, int) { return V::of_text(cut(v).phase); }},
      {"plp_flush_held", "flag", "power-loss protection held long enough: nothing volatile lost",
       [](const RunView& v, int) { return V::boolean(cut(v).account.protected_cut); }},
      {"plp_flush_s", "s", "time the PLP flush needed",
       [](const RunView& v, int) { return V::real(to_seconds(cut(v).account.flush_time)); }},
      {"pages_volatile_at_cut", "pages", "accepted writes whose only copy was volatile",
       cut_count<&CutAccount::volatile_pages>},
      {"pages_on_failed_flash", "pages", "accepted writes on a block or die that had failed",
       cut_count<&CutAccount::failed_pages>},
      {"pages_lost", "pages", "accepted writes that did not come back",
       recovery_count<&RecoveryReport::lost_pages>},
      {"programs_interrupted", "programs", "programs the cut interrupted",
       cut_count<&CutAccount::interrupted_programs>},
      {"paired_pages_corrupted", "pages", "die-pages lost to interrupted programs' pairs",
       cut_count<&CutAccount::corrupted_pages>},
      {"pages_scanned", "pages", "out-of-band areas recovery read",
       recovery_count<&RecoveryReport::pages_scanned>},
      {"map_pages_read", "pages", "translation pages of the checkpoint recovery read",
       recovery_count<&RecoveryReport::map_pages_read>},
      {"pages_replayed", "pages", "pages replayed from the PLP dump",
       recovery_count<&RecoveryReport::replayed_pages>},
      {"blocks_reclaimed", "blocks", "blocks found partly written or empty, queued to be erased",
       recovery_count<&RecoveryReport::blocks_reclaimed>},
      {"recovery_s", "s", "boot and mapping rebuild on the configured NAND",
       [](const RunView& v, int) { return V::real(to_seconds(cut(v).recovery.recovery_time)); }},
  };
}

// --- The last fill phase's figures, at the top level for quick reading ---
bool is_fill_metric(const PhaseMetric& m) { return m.name.rfind("fill.", 0) == 0; }
PhaseView phase_view(const RunView& v, const PhaseReport& p) {
  return phase_view(v.drive, v.workload, p);
}
// The last phase with a fill figure, or nullptr.
const PhaseReport* last_fill(const RunView& v) {
  const PhaseReport* last = nullptr;
  for (const PhaseReport& p : v.report.phases)
    for (const PhaseMetric& m : phase_metrics())
      if (is_fill_metric(m) && m.value(phase_view(v, p), m.arg).kind != V::Kind::kAbsent) {
        last = &p;
        break;
      }
  return last;
}
V fill_figure(const RunView& v, int metric) {
  const PhaseMetric& m = phase_metrics()[static_cast<std::size_t>(metric)];
  return m.value(phase_view(v, *last_fill(v)), m.arg);
}

// --- phases[]: one object per phase, from the phase tables --------------
Json phase_row(const RunView& run, std::size_t k) {
  const PhaseReport& p = run.report.phases[k];
  const PhaseView v = phase_view(run, p);
  Json j;
  add_metrics(phase_header_metrics(), v, j);
  // Every counter and figure of the phase, from the metrics table.
  add_phase_metrics(v, j);
  // share_under per op, and power.time_in_state_s: keys the configuration names.
  add_phase_families(v, j);
  // The durability, trace, jobs, namespaces and fdp blocks, from their
  // tables (time_in_state_s, above, goes inside the power object: the
  // phase's keys keep their order).
  add_block_metrics(v, j);
  add_procedure_phase_json(p, j);
  return j;
}

// The fill figures as the per-phase table declares them.
std::vector<RunMetric> fill_table() {
  std::vector<RunMetric> t;
  const std::vector<PhaseMetric>& phase = phase_metrics();
  for (std::size_t k = 0; k < phase.size(); ++k)
    if (is_fill_metric(phase[k]))
      t.push_back(
          {phase[k].name, phase[k].unit, phase[k].description, fill_figure, static_cast<int>(k)});
  return t;
}

// --- The configuration as resolved ---------------------------------------
std::vector<RunMetric> config_table() {
  return {
      {"drive", "document", "the drive file with its defaults and --set settings applied",
       [](const RunView& v, int) { return V::of_json(v.meta.drive_resolved_json); }},
      {"workload", "document", "the workload file, likewise",
       [](const RunView& v, int) { return V::of_json(v.meta.workload_resolved_json); }},
  };
}

std::vector<RunBlock> build_run_blocks() {
  return {
      {"", "what was run", header_table(), RunPlace::kBeforeProcedures},
      {"drive_model", "the drive as built", drive_model_table(), RunPlace::kBeforeProcedures},
      {"drive_model.zoned", "a zoned drive: its layout and device-side zone counters over the run",
       zoned_table(), RunPlace::kBeforeProcedures,
       [](const RunView& v) {
         return dynamic_cast<const ZonedFtl*>(v.drive.translation.get()) != nullptr;
       }},
      {"run",
       "the run's cost: wall time of the command and its parts, the simulation's events and "
       "memory",
       run_table(), RunPlace::kBeforeProcedures},
      {"verify", "--verify (or power cuts): what the reads and cuts did to the data",
       verify_table(), RunPlace::kBeforeProcedures,
       [](const RunView& v) { return v.verify != nullptr; }},
      {"phases[]",
       "one object per phase: its header, metrics, families and blocks (listed above)",
       {},
       RunPlace::kBeforeProcedures,
       nullptr,
       [](const RunView& v) { return v.report.phases.size(); },
       phase_row},
      {"power_cuts[]", "a workload with power cuts: one row per cut, what it lost and recovery",
       power_cuts_table(), RunPlace::kBeforeProcedures,
       [](const RunView& v) { return !v.report.power_cuts.empty(); },
       [](const RunView& v) { return v.report.power_cuts.size(); }},
      {"", "a whole-drive fill: the last fill phase's figures (phases[] fill.*)", fill_table(),
       RunPlace::kBeforeProcedures, [](const RunView& v) { return last_fill(v) != nullptr; }},
      {"config", "the configuration as resolved", config_table(), RunPlace::kLast},
  };
}

}  // namespace

const std::vector<RunBlock>& run_blocks() {
  static const std::vector<RunBlock> blocks = build_run_blocks();
  return blocks;
}

void add_run_blocks(const RunView& v, RunPlace place, Json& j) {
  for (const RunBlock& b : run_blocks()) {
    if (b.place != place || (b.applies && !b.applies(v))) continue;
    if (b.path.empty()) {
      add_metrics(b.metrics, v, j);
      continue;
    }
    if (!b.rows) {
      Json block = Json::object();
      add_metrics(b.metrics, v, block);
      put_at(j, b.path, std::move(block));
      continue;
    }
    Json rows = Json::array();
    if (b.row_json)
      for (std::size_t k = 0; k < b.rows(v); ++k) rows.push_back(b.row_json(v, k));
    else
      rows = metric_rows(b.metrics, b.rows(v), [&v](std::size_t k) {
        RunView row = v;
        row.row = k;
        return row;
      });
    put_at(j, b.path.substr(0, b.path.size() - 2), rows);
  }
}

const std::vector<PhaseMetric>& phase_header_metrics() {
  static const std::vector<PhaseMetric> table = build_phase_header();
  return table;
}

const std::vector<PhaseFamily>& phase_families() {
  static const std::vector<PhaseFamily> families = build_phase_families();
  return families;
}

void add_phase_families(const PhaseView& v, Json& j) {
  for (const PhaseFamily& f : phase_families()) {
    if (!f.applies(v)) continue;
    for (const MetricDef<PhaseRow>& m : f.metrics) {
      const std::size_t star = m.name.find('*');
      for (std::size_t i = 0, n = f.rows(v); i < n; ++i) {
        const MetricValue val = m.value(PhaseRow{v, i}, m.arg);
        if (val.kind == MetricValue::Kind::kAbsent) continue;
        put_at(j, m.name.substr(0, star) + f.key(v, i) + m.name.substr(star + 1), metric_json(val));
      }
    }
  }
}

void print_run_metrics(std::FILE* out) {
  std::fprintf(out, "\nPhase header: summary.json phases[], before the metrics\n");
  for (const PhaseMetric& m : phase_header_metrics())
    std::fprintf(out, "  %-42s %-11s %s\n", m.name.c_str(), m.unit, m.description);
  std::fprintf(out, "\nPhase families: summary.json phases[] (\"*\": one key per row)\n");
  for (const PhaseFamily& f : phase_families()) {
    std::fprintf(out, "  %s\n", f.description);
    for (const MetricDef<PhaseRow>& m : f.metrics)
      std::fprintf(out, "  %-42s %-11s %s\n", m.name.c_str(), m.unit, m.description);
  }
  std::fprintf(out, "\nRun blocks: summary.json's top level (\"[]\": one row per member)\n");
  for (const RunBlock& b : run_blocks()) {
    std::fprintf(out, "\n%s: %s\n", b.path.empty() ? "(top level)" : b.path.c_str(), b.description);
    for (const RunMetric& m : b.metrics)
      std::fprintf(out, "  %-42s %-11s %s%s\n", m.name.c_str(), m.unit, m.description,
                   m.wall ? " (wall time: differs run to run)" : "");
  }
  print_sweep_keys(out);
}

}  // namespace ssdtwin
