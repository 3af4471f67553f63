#include "app/runner.h"

#include <chrono>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "ftl/snapshot.h"
#include "sim/output_file.h"
#include "host/workload/io_pattern.h"
#include "host/trace/trace_cache.h"
#include "host/trace/trace_reader.h"
#include "sim/progress.h"

namespace ssdtwin {

namespace {

// SLC cache occupancy in GB, sampled into the time series.
class SlcGauge final : public Gauge {
 public:
  explicit SlcGauge(const Ftl& ftl) : ftl_(ftl) {}
  double value() const override { return static_cast<double>(ftl_.slc_cache_bytes()) / 1e9; }

 private:
  const Ftl& ftl_;
};

// Slots GC has moved so far: the work until_steady's rounds count.
class GcMovesGauge final : public Gauge {
 public:
  explicit GcMovesGauge(const Ftl& ftl) : ftl_(ftl) {}
  double value() const override { return static_cast<double>(ftl_.stats().gc_moved_slots); }

 private:
  const Ftl& ftl_;
};

// Samples the drive's activity (activity_columns()) at each interval
// boundary the engine passes.
class ActivityWatch {
 public:
  ActivityWatch(const Drive& drive, PhaseReport& pr, Tick start, Tick interval)
      : drive_(drive), cols_(activity_columns()), v_(cols_.size()) {
    pr.activity = std::make_unique<BoundarySampler>(start, interval, cols_.size());
    sampler_ = pr.activity.get();
    sampler_->push(sample());
    if (drive.power_meter) {
      pr.energy = std::make_unique<BoundarySampler>(start, interval, 1);
      energy_ = pr.energy.get();
      const double j = drive.power_meter->totals().total();
      energy_->push(&j);
    }
  }
  // Before the engine runs its next event (at `next`): the energy at each
  // boundary up to it, exact, because the background accrues linearly
  // until that event.
  void ahead(const EventEngine& engine) {
    if (!energy_ || engine.empty()) return;
    while (energy_->due(engine.next_time())) {
      const double j = drive_.power_meter->totals_at(energy_->next()).total();
      energy_->take(energy_->next(), &j);
    }
  }
  void poll(Tick now) {
    if (sampler_->due(now)) sampler_->take(now, sample());
  }
  void finish() {
    sampler_->push(sample());
    if (energy_) {
      const double j = drive_.power_meter->totals().total();
      energy_->push(&j);
    }
  }

 private:
  const double* sample() {
    for (std::size_t c = 0; c < cols_.size(); ++c) v_[c] = cols_[c].sample(drive_);
    return v_.data();
  }

  const Drive& drive_;
  const std::vector<ActivityColumn>& cols_;
  std::vector<double> v_;
  BoundarySampler* sampler_ = nullptr;
  BoundarySampler* energy_ = nullptr;
};

// Power totals at the start of measurement (the peak counts from here) or
// at its end.
void mark_power(Drive& drive, PhaseReport& pr, bool start) {
  if (!drive.power_meter) return;
  pr.has_power = true;
  PowerSnapshot& s = start ? pr.power_before : pr.power_after;
  s.at = drive.engine.now();
  s.energy = drive.power_meter->totals();
  s.states = drive.power_states->stats();
  if (start) drive.power_meter->reset_peak();
  else pr.peak_power_w = drive.power_meter->peak_w();
}

// The host's power settings (workload power_management) on a drive with
// a power model; the drive's state names are known only now.
void apply_power_policy(Drive& drive, const WorkloadSpec& workload) {
  const WorkloadSpec::PowerManagement& pm = workload.power;
  if (!pm.given) return;
  if (!drive.power_states) {
    spdlog::warn("workload power_management: drive '{}' has no power model (drive.power); ignored", drive.name);
    return;
  }
  const PowerConfig& cfg = *drive.power_cfg;
  auto index = [&](const std::string& name, const std::string& key, bool operational) {
    const std::size_t s = cfg.find(name);
    std::string names;
    for (const PowerStateSpec& st : cfg.states)
      if (st.operational == operational) names += (names.empty() ? "" : ", ") + st.name;
    if (s == std::string::npos || cfg.states[s].operational != operational)
      throw ConfigError("workload.power_management." + key + ": expected one of the drive's " +
                        (operational ? "operational" : "non-operational") + " power states (" + names +
                        "), got '" + name + "'");
    return s;
  };
  PowerPolicy policy;
  policy.operational = pm.state.empty() ? 0 : index(pm.state, "state", true);
  policy.device_initiated = pm.device_initiated;
  for (std::size_t i = 0; i < pm.idle_states.size(); ++i)
    policy.host_idle.push_back(
        {index(pm.idle_states[i].state, "idle_states." + std::to_string(i) + ".state", false),
         pm.idle_states[i].idle});
  drive.power_states->configure(policy);
}

// Runs the drive until it has finished what it was doing: nothing buffered,
// no flash operation or relocation in flight (Ftl::quiescent).
void settle(Drive& drive, const std::string& when) {
  while (!drive.ftl.quiescent())
    if (!drive.engine.step() && !drive.ftl.flush_stranded())
      throw std::runtime_error("the drive did not settle " + when);
}

// A phase that took no simulated time (fast preconditioning, or a phase a
// snapshot stands for): empty series, so the results writer treats it as any.
void timeless_result(const Drive& drive, const WorkloadSpec& workload, PhaseResult& r) {
  const Tick now = drive.engine.now();
  r.start = r.end = now;
  r.series = std::make_unique<IntervalSeries>(now, workload.interval);
  r.by_bytes = std::make_unique<ByteStepSeries>(now, workload.per_bytes);
}

// Fast preconditioning: the phase's writes and trims go to the FTL's state
// with no NAND timing, once the drive has finished what it was doing.
void run_fast_phase(Drive& drive, const WorkloadSpec& workload, const PhaseSpec& spec, Rng& rng,
                    Progress& progress, PhaseReport& pr) {
  settle(drive, "before fast preconditioning phase '" + spec.name + "'");
  mark_power(drive, pr, true);
  pr.nand_before = drive.nand.stats();
  pr.ftl_before = drive.ftl.stats();
  IoPattern pattern(spec, rng);
  std::uint64_t ios = 0, bytes = 0;
  auto more = [&] {
    return (spec.io_bytes == 0 || bytes < spec.io_bytes) && (spec.ios == 0 || ios < spec.ios);
  };
  auto show_progress = [&] {
    const double done = spec.io_bytes ? static_cast<double>(bytes) / static_cast<double>(spec.io_bytes)
                                      : static_cast<double>(ios) / static_cast<double>(spec.ios);
    progress.update(spec.name + (spec.steady ? " (fast, steady)" : " (fast)"), drive.engine.now(), done);
  };
  if (spec.steady) {
    const std::string why = drive.ftl.steady_blocker();
    if (!why.empty()) throw std::runtime_error("phase '" + spec.name + "' (fast: steady): " + why);
  }
  while (spec.steady && more()) {  // 4 KiB writes over the whole drive: one page per IO
    drive.ftl.fast_write_counted(rng);
    ++ios;
    bytes += kSectorBytes;
    if ((ios & 0xFFFFF) == 0) show_progress();
  }
  while (!spec.steady && more()) {
    const IoPattern::Io io = pattern.next();
    const Lpn first = static_cast<Lpn>(io.offset / kSectorBytes);
    for (std::uint32_t i = 0; i < io.bytes / kSectorBytes; ++i) {
      if (io.op == IoOp::kTrim) drive.ftl.fast_trim(first + i);
      else drive.ftl.fast_write(first + i);
    }
    ++ios;
    bytes += io.bytes;
    if ((ios & 0xFFFF) == 0) show_progress();
  }
  drive.ftl.end_fast(rng);  // the caller resumes the drive (Ftl::resume_after_fast)
  const int op = static_cast<int>(spec.rw == RwKind::kTrim ? IoOp::kTrim : IoOp::kWrite);
  pr.result.ios[op] = ios;
  pr.result.bytes[op] = bytes;
  timeless_result(drive, workload, pr.result);
}

// The rate an open-loop phase offers: its own, or a load-curve step's share
// of what the profile's maximum phase achieved (IOs of every op per second).
double offered_iops(const PhaseSpec& spec, const RunReport& report) {
  if (spec.rate.fraction <= 0) return spec.rate.iops;
  const PhaseReport& max = report.phases[spec.rate.of_phase];
  const double iops = max.result.iops();
  if (iops <= 0)
    throw std::runtime_error("phase '" + spec.name + "': its load-curve maximum ('" +
                             max.spec->name + "') completed no IO to scale the rate from");
  return spec.rate.fraction * iops;
}

// True when a power cut at `stop_at` has come.
bool cut_due(const Drive& drive, Tick stop_at) { return stop_at != 0 && drive.engine.now() >= stop_at; }

std::uint64_t ios_of(const PhaseResult& r) {
  std::uint64_t n = 0;
  for (int op = 0; op < PhaseResult::kOps; ++op) n += r.ios[op];
  return n;
}

// Where a power cut comes: at a time, or once the phase's IOs reach a count
// (0: no cut of that kind).
struct CutAt {
  Tick time = 0;
  std::uint64_t phase_ios = 0;
  bool due(const Drive& drive, const PhaseResult& r) const {
    return cut_due(drive, time) || (phase_ios != 0 && ios_of(r) >= phase_ios);
  }
};

// Returns false when a power cut stopped the phase.
bool run_timed_phase(Drive& drive, const WorkloadSpec& workload, const PhaseSpec& spec, Rng& rng,
                     Progress& progress, const Gauge* gauge, double offered, CutAt cut,
                     PhaseReport& pr) {
  const GcMovesGauge gc_moves(drive.ftl);
  IoGenerator gen(drive.engine, drive.hif, spec, rng, workload.interval, workload.per_bytes,
                  pr.result, gauge, offered, &gc_moves);
  ActivityWatch watch(drive, pr, pr.result.start, workload.interval);
  gen.start();
  std::uint32_t tick = 0;
  bool ramped = spec.ramp_time == 0;
  while (!gen.finished()) {
    watch.ahead(drive.engine);
    if (!ramped && gen.measuring()) {
      // Counters of the drive count from the end of the ramp, like the host's.
      ramped = true;
      mark_power(drive, pr, true);
      pr.nand_before = drive.nand.stats();
      pr.ftl_before = drive.ftl.stats();
    }
    if (!drive.engine.step())
      throw std::runtime_error("simulation stalled in phase '" + spec.name +
                               "': commands outstanding but no event pending");
    watch.poll(drive.engine.now());
    if ((++tick & 0x3FFF) == 0) progress.update(spec.name, drive.engine.now(), gen.progress());
    if (cut.due(drive, pr.result) || drive.ftl.all_dies_failed()) return false;
  }
  watch.finish();
  return true;
}

void run_trace_phase(Drive& drive, const WorkloadSpec& workload, const PhaseSpec& spec,
                     TraceRecordCache& traces, Progress& progress, const Gauge* gauge,
                     PhaseReport& pr) {
  const TracePhaseSpec& t = spec.trace;
  const std::optional<TraceFormat> format =
      t.format ? t.format : std::optional<TraceFormat>(detect_trace_format(t.file, t.read));
  TraceReplaySpec replay = t.replay;
  if (replay.map.mode == MapMode::kScale && !t.span_given)
    replay.map.trace_span = traces.scan(t.file, *format, t.read).max_end;  // one pre-pass
  const auto reader = traces.open(t.file, *format, t.read);
  pr.trace = std::make_unique<TraceReplayStats>();
  pr.trace_format = trace_format_name(*format);
  TraceReplay rep(drive.engine, drive.hif, replay, *reader, drive.user_bytes(), workload.interval,
                  workload.per_bytes, pr.result, *pr.trace, gauge);
  ActivityWatch watch(drive, pr, pr.result.start, workload.interval);
  rep.start();
  std::uint32_t tick = 0;
  while (!rep.finished()) {
    watch.ahead(drive.engine);
    if (!drive.engine.step())
      throw std::runtime_error("simulation stalled in phase '" + spec.name +
                               "': commands outstanding but no event pending");
    watch.poll(drive.engine.now());
    if ((++tick & 0x3FFF) == 0) progress.update(spec.name, drive.engine.now(), rep.progress());
    if (drive.ftl.all_dies_failed()) return;  // run_phases reports it
  }
  watch.finish();
  pr.trace_read = reader->stats();
  const TraceReplayStats& issued = *pr.trace;
  check_replay_not_empty(t, spec.name, pr.trace_read,
                         issued.commands[0] + issued.commands[1] + issued.commands[2]);
}

}  // namespace

const std::vector<ActivityColumn>& activity_columns() {
  static const std::vector<ActivityColumn> kColumns = {
      {"gc_moved_pages", true, "4 KiB pages", "valid pages relocated by GC in the interval",
       [](const Drive& d) { return static_cast<double>(d.ftl.stats().gc_moved_slots); }},
      {"fold_moved_pages", true, "4 KiB pages", "pages folded from SLC to native mode in the interval",
       [](const Drive& d) { return static_cast<double>(d.ftl.stats().fold_moved_slots); }},
      {"blocks_erased", true, "die-blocks", "blocks erased by GC, folding and SLC reclaim in the interval",
       [](const Drive& d) { return static_cast<double>(d.ftl.stats().gc_erases); }},
      {"host_pages_to_slc", true, "4 KiB pages", "host pages programmed into the SLC cache in the interval",
       [](const Drive& d) { return static_cast<double>(d.ftl.stats().host_slc_slots); }},
      {"free_blocks_per_die", false, "blocks", "erased blocks of the normal pools, drive average per die",
       [](const Drive& d) {
         return static_cast<double>(d.ftl.blocks().free_blocks_total()) / d.ftl.blocks().dies();
       }},
  };
  return kColumns;
}

std::size_t precondition_phases(const WorkloadSpec& workload) {
  std::size_t n = 0;
  while (n < workload.phases.size() && workload.phases[n].precondition) ++n;
  return n;
}

SnapshotKey snapshot_key(const Drive& drive, const SnapshotOptions& s, std::size_t phases) {
  // The preconditioning is the workload's seed (its random stream) and its
  // leading phases, as resolved (defaults and --set overrides included);
  // the rest of the workload does not touch the state.
  using Json = nlohmann::json;
  const Json doc = Json::parse(s.workload_json);
  const Json& w = doc.contains("workload") ? doc["workload"] : doc;
  Json pre = {{"seed", w.value("seed", Json())}, {"phases", Json::array()}};
  if (w.contains("phases"))
    for (std::size_t i = 0; i < phases && i < w["phases"].size(); ++i) pre["phases"].push_back(w["phases"][i]);
  SnapshotKey key;
  key.drive_json = Json::parse(s.drive_json).dump();
  key.precondition_json = pre.dump();
  key.verify = drive.ftl.verifying();
  return key;
}

namespace {

// The snapshot options make sense for this workload.
void check_snapshot_options(const WorkloadSpec& workload, const SnapshotOptions& s) {
  if (s.stop && s.save.empty()) throw SnapshotError("--precondition-only: needs --save-state FILE");
  if (s.save.empty() && s.load.empty()) return;
  if (!s.save.empty() && !s.load.empty())
    throw SnapshotError("--save-state and --load-state: one or the other (a loaded state is already saved)");
  const std::string flag = s.save.empty() ? "--load-state" : "--save-state";
  if (precondition_phases(workload) == 0)
    throw SnapshotError(flag + ": workload '" + workload.name +
                        "' has no leading precondition phases (precondition: true) for a snapshot to stand for");
  if (!workload.power_cuts.empty() || !workload.power_cuts_after_ios.empty() ||
      workload.uncorrectable_rate > 0 || !workload.uncorrectable_at.empty() ||
      !workload.block_faults.empty() || !workload.die_faults.empty())
    throw SnapshotError(flag + ": workload '" + workload.name +
                        "' has faults (faults:), which a snapshot does not carry; drop one or the other");
  if (s.drive_json.empty() || s.workload_json.empty())
    throw std::logic_error("snapshot options without the resolved drive and workload configs");
}

// Runs phases [first, end) of `workload` into `report` (sized for all its
// phases); stops early at a power cut (report.cut, and returns the index of
// the interrupted phase), else returns the phase count.
std::size_t run_phases(Drive& drive, const WorkloadSpec& workload, const RunOptions& opt,
                       std::size_t first, RunReport& report) {
  Rng rng(workload.seed + first);  // a resumed run draws a stream of its own
  const SnapshotOptions& snap = opt.snapshot;
  const std::size_t preconditioning = precondition_phases(workload);
  std::size_t skip = 0;  // phases a loaded snapshot stands for
  if (first == 0) check_snapshot_options(workload, snap);
  // Created now, so that a path that cannot be written fails before the
  // preconditioning it would hold is simulated.
  std::optional<OutputFile> snapshot_file;
  if (first == 0 && !snap.save.empty()) snapshot_file.emplace(snap.save);
  if (first == 0 && !snap.load.empty()) {
    const SnapshotIo io = drive.load_state(snap.load, snapshot_key(drive, snap, preconditioning), rng);
    skip = preconditioning;
    spdlog::info("snapshot {}: loaded {:.1f} MB in {:.2f} s; skipping the {} preconditioning phases, "
                 "simulated time {:.3f} s",
                 snap.load, static_cast<double>(io.bytes) / 1e6, io.seconds, skip,
                 to_seconds(drive.engine.now()));
  }
  if (first == 0) apply_power_policy(drive, workload);
  Progress progress(opt.progress);
  TraceRecordCache traces;  // a trace replayed by several phases is parsed once
  const SlcGauge slc_gauge(drive.ftl);
  const std::uint64_t events_before = drive.engine.events_executed();
  report.cut = false;
  std::uint64_t ios_before = 0;  // IOs of the run's phases before this one
  for (std::size_t k = 0; k < first; ++k) ios_before += ios_of(report.phases[k].result);
  std::size_t i = first;
  for (; i < workload.phases.size(); ++i) {
    const PhaseSpec& spec = workload.phases[i];
    PhaseReport& pr = report.phases[i];
    pr.spec = &spec;
    mark_power(drive, pr, true);
    pr.nand_before = drive.nand.stats();
    pr.ftl_before = drive.ftl.stats();
    const std::uint64_t waits_before = drive.controller.buffer_waits();
    const double wall_before = progress.wall_seconds();

    // The end of preconditioning, where a snapshot is taken and a run from
    // one resumes. After a fast phase the drive is quiescent already, and
    // the snapshot holds the state before its dies start collecting: plain,
    // saving and loading runs go on alike. After a timed one the saving run
    // settles the drive first (buffered data programmed, GC done to its
    // target, as an idle gap would), and the loading run starts from there;
    // a plain run goes straight on, as the workload says.
    const bool last_pre = i + 1 == preconditioning;
    const bool saving_here = snapshot_file && i >= skip && last_pre;
    bool stop = false;
    auto save = [&] {
      const SnapshotIo io = drive.save_state(*snapshot_file, snapshot_key(drive, snap, preconditioning), rng);
      spdlog::info("snapshot {}: saved {:.1f} MB in {:.2f} s after phase '{}', simulated time {:.3f} s",
                   snap.save, static_cast<double>(io.bytes) / 1e6, io.seconds, spec.name,
                   to_seconds(drive.engine.now()));
      stop = snap.stop;
    };
    // A snapshot taken after a fast phase stands for the state before its
    // resumption: the run from it resumes here as the saving run did.
    const bool resume = spec.fast && (i >= skip || last_pre);
    if (i < skip) {
      timeless_result(drive, workload, pr.result);
    } else if (spec.fast) {
      run_fast_phase(drive, workload, spec, rng, progress, pr);
      if (saving_here) save();
    } else if (spec.rw == RwKind::kTrace) run_trace_phase(drive, workload, spec, traces, progress, &slc_gauge, pr);
    else {
      CutAt cut;
      cut.time = opt.stop_at;
      if (opt.stop_after_ios > 0)
        cut.phase_ios = opt.stop_after_ios > ios_before ? opt.stop_after_ios - ios_before : 1;
      report.cut = !run_timed_phase(drive, workload, spec, rng, progress, &slc_gauge,
                                    offered_iops(spec, report), cut, pr);
    }
    if (drive.ftl.all_dies_failed() && report.failure.empty()) {
      // Nothing can complete any more: the run ends here, its results
      // written up to this point, and the caller exits non-zero.
      report.failure = "all dies failed (at " + std::to_string(to_seconds(drive.engine.now())) +
                       " s, in phase '" + spec.name + "')";
      report.cut = true;
    }
    if (resume && !stop) {
      // A timed phase next: the map fast writes made goes to flash first.
      if (i + 1 < workload.phases.size() && !workload.phases[i + 1].fast) drive.ftl.persist_fast_map();
      drive.ftl.resume_after_fast();
    }
    ios_before += ios_of(pr.result);
    mark_power(drive, pr, false);  // idle_after is between phases, as the host sees it
    if (!report.cut && !stop && (i >= skip || resume) && spec.idle_after > 0) {
      const Tick until = drive.engine.now() + spec.idle_after;
      drive.engine.advance_to(opt.stop_at && opt.stop_at < until ? opt.stop_at : until);
      report.cut = cut_due(drive, opt.stop_at);
    }
    const bool settle_here = saving_here && !spec.fast && !report.cut;
    if (settle_here) settle(drive, "at the end of preconditioning (phase '" + spec.name + "')");

    pr.nand_after = drive.nand.stats();
    pr.ftl_after = drive.ftl.stats();
    pr.buffer_waits = drive.controller.buffer_waits() - waits_before;
    pr.min_free_blocks = drive.ftl.min_free_blocks_seen();
    pr.wear = drive.ftl.blocks().wear();
    pr.valid_shares = drive.ftl.blocks().valid_shares();
    pr.wall_seconds = progress.wall_seconds() - wall_before;
    pr.slc_bytes_at_end = static_cast<double>(drive.ftl.slc_cache_bytes());
    if (report.cut) {
      if (!report.failure.empty()) report.phases.resize(i + 1);
      break;
    }
    if (settle_here) save();
    if (stop) {
      report.phases.resize(++i);
      break;
    }
  }
  progress.finish();
  report.wall_seconds += progress.wall_seconds();
  report.events += drive.engine.events_executed() - events_before;
  report.sim_end = drive.engine.now();
  return i;
}

}  // namespace

RunReport run_workload(Drive& drive, const WorkloadSpec& workload, const RunOptions& opt) {
  RunReport report;
  report.phases.resize(workload.phases.size());
  const std::size_t end = run_phases(drive, workload, opt, 0, report);
  if (report.cut) report.phases.resize(end + 1);
  return report;
}

RunReport run_with_faults(std::unique_ptr<Drive>& drive,
                              const std::function<std::unique_ptr<Drive>()>& build,
                              const WorkloadSpec& workload, const RunOptions& opt) {
  RunReport report;
  report.phases.resize(workload.phases.size());
  ReadRecovery::Injected faults;
  faults.rate = workload.uncorrectable_rate;
  for (const std::uint64_t offset : workload.uncorrectable_at)
    faults.pages.push_back(static_cast<Lpn>(offset / kSectorBytes));
  drive->ftl.inject_faults(faults);
  for (const auto& f : workload.block_faults) drive->ftl.fail_block_at(f.at, f.die, f.block);
  for (const auto& f : workload.die_faults) drive->ftl.fail_die_at(f.at, f.die);
  // Cuts by time or by IO count (the workload has one list or the other).
  std::vector<CutAt> cuts;
  for (const Tick t : workload.power_cuts) cuts.push_back({t, 0});
  for (const std::uint64_t n : workload.power_cuts_after_ios) cuts.push_back({0, n});
  std::size_t next = 0;
  Tick down = 0;  // time spent recovering so far: cut times count powered time only
  for (const CutAt& planned : cuts) {
    RunOptions o = opt;
    o.stop_at = planned.time ? planned.time + down : 0;
    o.stop_after_ios = planned.phase_ios;
    const std::size_t hit = run_phases(*drive, workload, o, next, report);
    // The workload ended before this cut, or the drive failed.
    if (!report.cut || !report.failure.empty()) return report;
    // The cut, the new drive and its recovery are simulation work too.
    const auto cut_start = std::chrono::steady_clock::now();
    const DurableImage image = drive->ftl.power_cut();
    report.verify_checks_before += drive->ftl.stats().verify_checks;
    report.verify_errors_before += drive->ftl.stats().verify_errors;
    const Tick at = drive->engine.now();
    std::unique_ptr<Drive> fresh = build();
    fresh->ftl.inject_faults(drive->ftl.injected_faults());
    fresh->engine.advance_to(at);
    const RecoveryReport rec = fresh->ftl.recover(image);
    fresh->engine.advance_to(at + rec.recovery_time);
    // Block failures still to come happen on the new drive, as late in
    // powered time (those already past are in the image).
    for (const auto& f : workload.block_faults)
      if (f.at + down > at) fresh->ftl.fail_block_at(f.at + down + rec.recovery_time, f.die, f.block);
    for (const auto& f : workload.die_faults)
      if (f.at + down > at) fresh->ftl.fail_die_at(f.at + down + rec.recovery_time, f.die);
    down += rec.recovery_time;
    report.wall_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - cut_start).count();
    PowerCutReport c;
    c.at = at;
    c.phase = workload.phases[hit].name;
    c.account = image.account;
    c.recovery = rec;
    report.power_cuts.push_back(c);
    drive = std::move(fresh);
    next = hit + 1;
    if (next == workload.phases.size()) {
      report.phases.resize(next);
      report.cut = false;
      return report;
    }
  }
  RunOptions o = opt;
  o.stop_at = 0;
  run_phases(*drive, workload, o, next, report);
  return report;
}

}  // namespace ssdtwin
