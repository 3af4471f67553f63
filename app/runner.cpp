#include "app/runner.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "ftl/drive_failure.h"
#include "ftl/zoned_ftl.h"
#include "host/trace/trace_cache.h"
#include "host/trace/trace_reader.h"
#include "host/workload/io_pattern.h"
#include "sim/output_file.h"
#include "sim/progress.h"
#include "sim/state_archive.h"

namespace ssdtwin {

namespace {

// SLC cache occupancy in GB, sampled into the time series. (The drive is
// followed through the pointer a power cut replaces it in.)
class SlcGauge final : public Gauge {
 public:
  explicit SlcGauge(Drive* const& drive) : drive_(drive) {}
  double value() const override {
    return drive_->ftl ? static_cast<double>(drive_->ftl->slc_cache_bytes()) / 1e9 : 0.0;
  }

 private:
  Drive* const& drive_;
};

// Slots GC has moved so far: the work until_steady's rounds count.
class GcMovesGauge final : public Gauge {
 public:
  explicit GcMovesGauge(Drive* const& drive) : drive_(drive) {}
  double value() const override {
    return static_cast<double>(drive_->translation->stats().gc_moved_slots) + carried_;
  }
  // A power cut replaced the drive: the count goes on from `before`.
  void replaced(double before) { carried_ += before - value(); }

 private:
  Drive* const& drive_;
  double carried_ = 0;
};

// Samples the drive's activity (activity_columns()) at each interval
// boundary the engine passes.
class ActivityWatch {
 public:
  ActivityWatch(const Drive& drive, PhaseReport& pr, Tick start, Tick interval)
      : drive_(&drive), cols_(activity_columns()), v_(cols_.size()), carried_(cols_.size(), 0.0) {
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
      const double j = drive_->power_meter->totals_at(energy_->next()).total() + joules_carried_;
      energy_->take(energy_->next(), &j);
    }
  }
  void poll(Tick now) {
    if (sampler_->due(now)) sampler_->take(now, sample());
  }
  void finish() {
    sampler_->push(sample());
    if (energy_) {
      const double j = drive_->power_meter->totals().total() + joules_carried_;
      energy_->push(&j);
    }
  }
  // A power cut replaces the drive (before_cut while the old one exists,
  // after_cut with the new one): the new drive's counters start from zero,
  // so the running totals carry what the old one had counted.
  void before_cut() {
    sample();
    joules_at_cut_ =
        drive_->power_meter ? drive_->power_meter->totals().total() + joules_carried_ : 0;
  }
  void after_cut(const Drive& fresh) {
    drive_ = &fresh;
    for (std::size_t c = 0; c < cols_.size(); ++c)
      if (cols_[c].running_total) carried_[c] = v_[c] - cols_[c].sample(fresh);
    if (fresh.power_meter) joules_carried_ = joules_at_cut_ - fresh.power_meter->totals().total();
  }

 private:
  const double* sample() {
    for (std::size_t c = 0; c < cols_.size(); ++c) v_[c] = cols_[c].sample(*drive_) + carried_[c];
    return v_.data();
  }

  const Drive* drive_;
  const std::vector<ActivityColumn>& cols_;
  std::vector<double> v_;
  std::vector<double> carried_;  // running totals of drives a power cut replaced
  double joules_carried_ = 0, joules_at_cut_ = 0;
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
  if (start)
    drive.power_meter->reset_peak();
  else
    pr.peak_power_w = drive.power_meter->peak_w();
}

}  // namespace

std::optional<PowerPolicy> power_policy_of(const Drive& drive, const WorkloadSpec& workload,
                                           bool warn) {
  const WorkloadSpec::PowerManagement& pm = workload.power;
  if (!pm.given) return std::nullopt;
  if (!drive.power_states) {
    if (warn)
      spdlog::warn(
          "workload power_management: drive '{}' has no power model (drive.power); ignored",
          drive.name);
    return std::nullopt;
  }
  const PowerConfig& cfg = *drive.power_cfg;
  auto index = [&](const std::string& name, const std::string& key, bool operational) {
    const std::size_t s = cfg.find(name);
    std::string names;
    for (const PowerStateSpec& st : cfg.states)
      if (st.operational == operational) names += (names.empty() ? "" : ", ") + st.name;
    if (s == std::string::npos || cfg.states[s].operational != operational)
      throw ConfigError("workload.power_management." + key + ": expected one of the drive's " +
                        (operational ? "operational" : "non-operational") + " power states (" +
                        names + "), got '" + name + "'");
    return s;
  };
  PowerPolicy policy;
  policy.operational = pm.state.empty() ? 0 : index(pm.state, "state", true);
  policy.device_initiated = pm.device_initiated;
  for (std::size_t i = 0; i < pm.idle_states.size(); ++i)
    policy.host_idle.push_back(
        {index(pm.idle_states[i].state, "idle_states." + std::to_string(i) + ".state", false),
         pm.idle_states[i].idle});
  return policy;
}

namespace {

// The host's power settings (workload power_management) on a drive with
// a power model (checked, and warned of, before the run: main).
void apply_power_policy(Drive& drive, const WorkloadSpec& workload) {
  if (const auto policy = power_policy_of(drive, workload, false))
    drive.power_states->configure(*policy);
}

// Runs the drive until it has finished what it was doing: nothing buffered,
// no flash operation or relocation in flight (Ftl::quiescent).
void settle(Drive& drive, const std::string& when) {
  while (!drive.translation->quiescent())
    if (!drive.engine.step() && !drive.translation->flush_stranded())
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
  pr.ftl_before = drive.ftl->stats();
  IoPattern pattern(spec, rng);
  const Namespace& ns = *drive.namespaces.find(spec.nsid);
  const Lpn base = ns.first;
  // The IO's reclaim unit handle (FDP): its placement identifier's. With
  // several identifiers a fast phase takes them in turn, random or not.
  std::size_t next_placement = 0;
  const auto handle = [&] {
    if (spec.placements.empty()) return ns.handles[spec.placement];
    return ns.handles[spec.placements[next_placement++ % spec.placements.size()]];
  };
  std::uint64_t ios = 0, bytes = 0;
  auto more = [&] {
    return (spec.io_bytes == 0 || bytes < spec.io_bytes) && (spec.ios == 0 || ios < spec.ios);
  };
  auto show_progress = [&] {
    const double done = spec.io_bytes
                            ? static_cast<double>(bytes) / static_cast<double>(spec.io_bytes)
                            : static_cast<double>(ios) / static_cast<double>(spec.ios);
    progress.update(spec.name + (spec.steady ? " (fast, steady)" : " (fast)"), drive.engine.now(),
                    done);
  };
  if (spec.steady) {
    const std::string why = drive.ftl->steady_blocker();
    if (!why.empty()) throw std::runtime_error("phase '" + spec.name + "' (fast: steady): " + why);
  }
  while (spec.steady && more()) {  // 4 KiB writes over the whole drive: one page per IO
    drive.ftl->fast_write_counted(rng);
    ++ios;
    bytes += kSectorBytes;
    if ((ios & 0xFFFFF) == 0) show_progress();
  }
  while (!spec.steady && more()) {
    const IoPattern::Io io = pattern.next();
    const Lpn first = base + static_cast<Lpn>(io.offset / kSectorBytes);
    const PlacementHandle h = io.op == IoOp::kTrim ? 0 : handle();
    for (std::uint32_t i = 0; i < io.bytes / kSectorBytes; ++i) {
      if (io.op == IoOp::kTrim)
        drive.ftl->fast_trim(first + i);
      else
        drive.ftl->fast_write(first + i, h);
    }
    ++ios;
    bytes += io.bytes;
    if ((ios & 0xFFFF) == 0) show_progress();
  }
  drive.ftl->end_fast(rng);  // the caller resumes the drive (Ftl::resume_after_fast)
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
bool cut_due(const Drive& drive, Tick stop_at) {
  return stop_at != 0 && drive.engine.now() >= stop_at;
}

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

// A bug trap (workload `watchdog`): ends a timed phase in which simulated
// time advances the span with commands in the drive and none completing,
// naming the state a hang would be found in. A phase idle on the host (no
// command in the drive) is not a hang.
class Watchdog {
 public:
  Watchdog(Tick span, const Drive& drive) : span_(span) { reset(drive); }
  // The next time worth a look: checked after every event, so it costs one
  // comparison until then.
  Tick due() const { return due_; }
  void reset(const Drive& drive) { due_ = span_ == 0 ? kNever : drive.engine.now() + span_; }
  void check(const Drive& drive, const std::string& phase) {
    const Tick now = drive.engine.now();
    if (drive.hif.in_device() == 0) {
      due_ = now + span_;
      return;
    }
    const Tick since = drive.hif.waiting_since();
    if (now - since < span_) {
      due_ = since + span_;
      return;
    }
    std::string state = "zoned FTL";
    if (drive.ftl) {
      std::string free;
      for (std::uint32_t d = 0; d < drive.geo.dies(); ++d)
        free += (d ? " " : "") + std::to_string(drive.ftl->blocks().free_blocks(d));
      state = std::string("GC ") + (drive.ftl->gc_active() ? "under way" : "idle") +
              "; free blocks per die: " + free + " (GC reserve " +
              std::to_string(drive.ftl->config().gc_reserved_blocks) + ")";
    }
    char span[32];
    std::snprintf(span, sizeof span, "%g", to_seconds(span_));
    throw DriveFailure("watchdog: no host IO completed in " + std::string(span) +
                       " s of simulated time in phase '" + phase +
                       "' (a simulator bug: please report it) " + "with " +
                       std::to_string(drive.hif.in_device()) + " commands in the drive and " +
                       std::to_string(drive.hif.waiting()) + " waiting on the host; " + state);
  }

 private:
  static constexpr Tick kNever = ~Tick{0};
  Tick span_;
  Tick due_ = 0;
};

// The power cuts of a run with faults (workload faults.power_cuts or
// power_cuts_after_ios), in order: when the next one comes, and the cut
// itself, which recovers the drive as the cut leaves it into a newly built
// one that takes its place.
class PowerCycler {
 public:
  PowerCycler(std::unique_ptr<Drive>& drive, const std::function<std::unique_ptr<Drive>()>& build,
              const WorkloadSpec& workload, RunReport& report)
      : drive_(drive), build_(build), workload_(workload), report_(report) {}
  std::size_t listed() const {
    return workload_.power_cuts.size() + workload_.power_cuts_after_ios.size();
  }
  std::size_t done() const { return next_; }
  // The next cut's time on the run's clock (its powered time plus the
  // recoveries before it), or the run's IO count it comes at; 0: none.
  Tick next_time() const {
    return next_ < workload_.power_cuts.size() ? workload_.power_cuts[next_] + down_ : 0;
  }
  std::uint64_t next_ios() const {
    return next_ < workload_.power_cuts_after_ios.size() ? workload_.power_cuts_after_ios[next_]
                                                         : 0;
  }
  // The fewest free blocks the drives replaced so far saw.
  std::uint32_t min_free_seen() const { return min_free_; }
  Drive& drive() { return *drive_; }

  // Power fails now, in `phase`: returns how long the drive was down.
  Tick cut(const std::string& phase) {
    Drive& old = *drive_;
    const DurableImage image = old.ftl->power_cut();
    report_.verify_checks_before += old.ftl->stats().verify_checks;
    report_.verify_errors_before += old.ftl->stats().verify_errors;
    report_.reads_failed_before += old.ftl->stats().host_reads_failed;
    report_.events += old.engine.events_executed();
    min_free_ = std::min(min_free_, old.ftl->min_free_blocks_seen());
    const Tick at = old.engine.now();
    std::unique_ptr<Drive> fresh = build_();
    fresh->ftl->inject_faults(old.ftl->injected_faults());
    fresh->engine.advance_to(at);
    const RecoveryReport rec = fresh->ftl->recover(image);
    fresh->engine.advance_to(at + rec.recovery_time);
    // Block failures still to come happen on the new drive, as late in
    // powered time (those already past are in the image).
    for (const auto& f : workload_.block_faults)
      if (f.at + down_ > at)
        fresh->ftl->fail_block_at(f.at + down_ + rec.recovery_time, f.die, f.block);
    for (const auto& f : workload_.die_faults)
      if (f.at + down_ > at) fresh->ftl->fail_die_at(f.at + down_ + rec.recovery_time, f.die);
    down_ += rec.recovery_time;
    // The host sets its power settings again on the drive it finds.
    apply_power_policy(*fresh, workload_);
    PowerCutReport c;
    c.at = at;
    c.phase = phase;
    c.account = image.account;
    c.recovery = rec;
    report_.power_cuts.push_back(c);
    ++next_;
    drive_ = std::move(fresh);
    return rec.recovery_time;
  }

 private:
  std::unique_ptr<Drive>& drive_;
  const std::function<std::unique_ptr<Drive>()>& build_;
  const WorkloadSpec& workload_;
  RunReport& report_;
  std::size_t next_ = 0;
  Tick down_ = 0;  // time spent recovering so far: cut times count powered time only
  std::uint32_t min_free_ = 0xFFFFFFFFu;
};

// Counters of a phase a power cut spans: the new drive counts from zero,
// so the phase's starting values move by what the old drive had counted
// (x + fresh - old), and its deltas cover both drives. Whole-struct
// arithmetic on 64-bit words, modulo 2^64 like the counters themselves.
template <class Stats>
void carry_over(Stats& x, const Stats& old_now, const Stats& fresh_now) {
  static_assert(std::has_unique_object_representations_v<Stats> && sizeof(Stats) % 8 == 0,
                "counters only: 64-bit words with no padding");
  constexpr std::size_t kWords = sizeof(Stats) / 8;
  std::uint64_t v[kWords], o[kWords], f[kWords];
  std::memcpy(v, &x, sizeof(Stats));
  std::memcpy(o, &old_now, sizeof(Stats));
  std::memcpy(f, &fresh_now, sizeof(Stats));
  for (std::size_t k = 0; k < kWords; ++k) v[k] += f[k] - o[k];
  std::memcpy(&x, v, sizeof(Stats));
}

void carry_power(PowerSnapshot& x, const PowerSnapshot& old_now, const PowerSnapshot& fresh_now) {
  x.energy.nand_array += fresh_now.energy.nand_array - old_now.energy.nand_array;
  x.energy.nand_io += fresh_now.energy.nand_io - old_now.energy.nand_io;
  x.energy.controller += fresh_now.energy.controller - old_now.energy.controller;
  x.energy.background += fresh_now.energy.background - old_now.energy.background;
  for (std::size_t s = 0; s < x.states.time_in_state.size(); ++s)
    x.states.time_in_state[s] +=
        fresh_now.states.time_in_state[s] - old_now.states.time_in_state[s];
  x.states.wakeups += fresh_now.states.wakeups - old_now.states.wakeups;
  x.states.wake_delay += fresh_now.states.wake_delay - old_now.states.wake_delay;
}

PowerSnapshot power_now(const Drive& drive) {
  PowerSnapshot s;
  s.at = drive.engine.now();
  s.energy = drive.power_meter->totals();
  s.states = drive.power_states->stats();
  return s;
}

// Power fails during phase `pr` (`ended`: after its measurement, in its
// idle time): the drive is replaced by the recovered one, and the phase's
// counters carry over. Returns how long the drive was down.
Tick cycle_power(Drive*& drive, PowerCycler& cycler, PhaseReport& pr, bool ended) {
  const FtlStats old_ftl = drive->translation->stats();
  const NandStats old_nand = drive->nand.stats();
  const std::uint64_t old_waits = drive->controller.buffer_waits();
  PowerSnapshot old_power;
  if (drive->power_meter) {
    old_power = power_now(*drive);
    if (!ended) pr.peak_power_w = std::max(pr.peak_power_w, drive->power_meter->peak_w());
  }
  const Tick down = cycler.cut(pr.spec->name);
  drive = &cycler.drive();
  carry_over(pr.ftl_before, old_ftl, drive->translation->stats());
  carry_over(pr.nand_before, old_nand, drive->nand.stats());
  pr.buffer_waits += drive->controller.buffer_waits() - old_waits;
  if (drive->power_meter && pr.has_power) {
    const PowerSnapshot fresh = power_now(*drive);
    carry_power(pr.power_before, old_power, fresh);
    if (ended) carry_power(pr.power_after, old_power, fresh);
  }
  return down;
}

// Returns false when a power cut stopped the phase (without a cycler, the
// run stops there, RunOptions::stop_at) or every die has failed. With one,
// the phase goes on through each cut that comes, on the recovered drive.
bool run_timed_phase(Drive*& drive, const WorkloadSpec& workload, const PhaseSpec& spec, Rng& rng,
                     Progress& progress, const Gauge* gauge, double offered,
                     const std::function<CutAt()>& next_cut, PowerCycler* cycler, PhaseReport& pr) {
  GcMovesGauge gc_moves(drive);
  IoGenerator gen(drive->engine, drive->hif, spec, rng, workload.interval, workload.per_bytes,
                  pr.result, gauge, offered, &gc_moves);
  if (const auto* z = dynamic_cast<const ZonedFtl*>(drive->translation.get()))
    gen.set_zone_layout(
        {z->layout().zone_slots * kSectorBytes, z->layout().capacity_slots * kSectorBytes});
  ActivityWatch watch(*drive, pr, pr.result.start, workload.interval);
  CutAt cut = next_cut();
  Watchdog watchdog(workload.watchdog, *drive);
  gen.start();
  std::uint32_t tick = 0;
  bool ramped = spec.ramp_time == 0;
  while (!gen.finished()) {
    watch.ahead(drive->engine);
    if (!ramped && gen.measuring()) {
      // Counters of the drive count from the end of the ramp, like the host's.
      ramped = true;
      mark_power(*drive, pr, true);
      pr.nand_before = drive->nand.stats();
      pr.ftl_before = drive->translation->stats();
      pr.buffer_waits = drive->controller.buffer_waits();
    }
    if (!drive->engine.step())
      throw std::runtime_error("simulation stalled in phase '" + spec.name +
                               "': commands outstanding but no event pending");
    watch.poll(drive->engine.now());
    if ((++tick & 0x3FFF) == 0) progress.update(spec.name, drive->engine.now(), gen.progress());
    if (drive->engine.now() >= watchdog.due()) watchdog.check(*drive, spec.name);
    if (drive->ftl && drive->ftl->all_dies_failed()) return false;
    if (!cut.due(*drive, pr.result)) continue;
    if (!cycler) return false;
    // The host runs on through the cut: what the drive held fails, and the
    // phase goes on with the recovered drive.
    gen.drive_lost();
    const double moves = gc_moves.value();
    watch.before_cut();
    const Tick down = cycle_power(drive, *cycler, pr, false);
    watch.after_cut(*drive);
    gc_moves.replaced(moves);
    gen.attach(drive->engine, drive->hif, down);
    watchdog.reset(*drive);
    cut = next_cut();
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
  replay.nsid = spec.nsid;
  replay.placement_handles =
      static_cast<std::uint32_t>(drive.namespaces.find(spec.nsid)->handles.size());
  if (replay.map.mode == MapMode::kScale && !t.span_given)
    replay.map.trace_span = traces.scan(t.file, *format, t.read).max_end;  // one pre-pass
  const auto reader = traces.open(t.file, *format, t.read);
  pr.trace = std::make_unique<TraceReplayStats>();
  pr.trace_format = trace_format_name(*format);
  TraceReplay rep(drive.engine, drive.hif, replay, *reader,
                  drive.namespaces.find(spec.nsid)->bytes(), workload.interval, workload.per_bytes,
                  pr.result, *pr.trace, gauge);
  ActivityWatch watch(drive, pr, pr.result.start, workload.interval);
  Watchdog watchdog(workload.watchdog, drive);
  rep.start();
  std::uint32_t tick = 0;
  while (!rep.finished()) {
    watch.ahead(drive.engine);
    if (!drive.engine.step())
      throw std::runtime_error("simulation stalled in phase '" + spec.name +
                               "': commands outstanding but no event pending");
    watch.poll(drive.engine.now());
    if ((++tick & 0x3FFF) == 0) progress.update(spec.name, drive.engine.now(), rep.progress());
    if (drive.engine.now() >= watchdog.due()) watchdog.check(drive, spec.name);
    if (drive.ftl && drive.ftl->all_dies_failed()) return;  // run_phases reports it
  }
  watch.finish();
  pr.trace_read = reader->stats();
  const TraceReplayStats& issued = *pr.trace;
  check_replay_not_empty(t, spec.name, pr.trace_read,
                         issued.commands[0] + issued.commands[1] + issued.commands[2]);
}

}  // namespace

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
    for (std::size_t i = 0; i < phases && i < w["phases"].size(); ++i)
      pre["phases"].push_back(w["phases"][i]);
  SnapshotKey key;
  key.drive_json = Json::parse(s.drive_json).dump();
  key.precondition_json = pre.dump();
  key.verify = drive.ftl && drive.ftl->verifying();
  return key;
}

namespace {

// The snapshot options make sense for this workload.
void check_snapshot_options(const WorkloadSpec& workload, const SnapshotOptions& s) {
  if (s.stop && s.save.empty()) throw SnapshotError("--precondition-only: needs --save-state FILE");
  if (s.save.empty() && s.load.empty()) return;
  if (!s.save.empty() && !s.load.empty())
    throw SnapshotError(
        "--save-state and --load-state: one or the other (a loaded state is already saved)");
  const std::string flag = s.save.empty() ? "--load-state" : "--save-state";
  // Before the preconditioning the state would take: its file could not be put there.
  if (!s.save.empty() && std::filesystem::is_directory(s.save))
    throw SnapshotError("--save-state " + s.save +
                        ": is a folder; expected a file name for the snapshot");
  if (precondition_phases(workload) == 0)
    throw SnapshotError(
        flag + ": workload '" + workload.name +
        "' has no leading precondition phases (precondition: true) for a snapshot to stand for");
  if (!workload.power_cuts.empty() || !workload.power_cuts_after_ios.empty() ||
      workload.uncorrectable_rate > 0 || !workload.uncorrectable_at.empty() ||
      !workload.block_faults.empty() || !workload.die_faults.empty())
    throw SnapshotError(
        flag + ": workload '" + workload.name +
        "' has faults (faults:), which a snapshot does not carry; drop one or the other");
  if (s.drive_json.empty() || s.workload_json.empty())
    throw std::logic_error("snapshot options without the resolved drive and workload configs");
}

// Runs `workload`'s phases into `report` (sized for all its phases). Without
// a cycler, stops early at a power cut (report.cut, RunOptions::stop_at or
// stop_after_ios) and returns the index of the interrupted phase; with one,
// power fails at each of its cuts and the run goes on on the recovered
// drive (`drive` then points to the last one). Returns the phase count
// unless the run stopped early.
std::size_t run_phases(Drive*& drive, const WorkloadSpec& workload, const RunOptions& opt,
                       PowerCycler* cycler, RunReport& report) {
  Rng rng(workload.seed);
  const SnapshotOptions& snap = opt.snapshot;
  const std::size_t preconditioning = precondition_phases(workload);
  std::size_t skip = 0;  // phases a loaded snapshot stands for
  check_snapshot_options(workload, snap);
  // Created now, so that a path that cannot be written fails before the
  // preconditioning it would hold is simulated.
  std::optional<OutputFile> snapshot_file;
  if (!snap.save.empty()) snapshot_file.emplace(snap.save);
  if (!snap.load.empty()) {
    const SnapshotIo io =
        drive->load_state(snap.load, snapshot_key(*drive, snap, preconditioning), rng);
    skip = preconditioning;
    spdlog::info(
        "snapshot {}: loaded {:.1f} MB in {:.2f} s; skipping the {} preconditioning phases, "
        "simulated time {:.3f} s",
        snap.load, static_cast<double>(io.bytes) / 1e6, io.seconds, skip,
        to_seconds(drive->engine.now()));
  }
  apply_power_policy(*drive, workload);
  Progress progress(opt.progress);
  TraceRecordCache traces;  // a trace replayed by several phases is parsed once
  const SlcGauge slc_gauge(drive);
  Drive* const first_drive = drive;
  const std::uint64_t events_before = drive->engine.events_executed();
  report.cut = false;
  std::uint64_t ios_before = 0;  // IOs of the run's phases before this one
  // The next power cut, from the cycler or the options.
  const std::function<CutAt()> next_cut = [&] {
    CutAt c;
    c.time = cycler ? cycler->next_time() : opt.stop_at;
    const std::uint64_t n = cycler ? cycler->next_ios() : opt.stop_after_ios;
    if (n > 0) c.phase_ios = n > ios_before ? n - ios_before : 1;
    return c;
  };
  std::size_t i = 0;
  for (; i < workload.phases.size(); ++i) {
    const PhaseSpec& spec = workload.phases[i];
    PhaseReport& pr = report.phases[i];
    pr.spec = &spec;
    mark_power(*drive, pr, true);
    pr.nand_before = drive->nand.stats();
    pr.ftl_before = drive->translation->stats();
    pr.buffer_waits = drive->controller.buffer_waits();  // the phase's delta at its end
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
      const SnapshotIo io =
          drive->save_state(*snapshot_file, snapshot_key(*drive, snap, preconditioning), rng);
      spdlog::info(
          "snapshot {}: saved {:.1f} MB in {:.2f} s after phase '{}', simulated time {:.3f} s",
          snap.save, static_cast<double>(io.bytes) / 1e6, io.seconds, spec.name,
          to_seconds(drive->engine.now()));
      stop = snap.stop;
    };
    // A snapshot taken after a fast phase stands for the state before its
    // resumption: the run from it resumes here as the saving run did.
    const bool resume = spec.fast && (i >= skip || last_pre);
    // The drive cannot go on: the run ends here with its results up to this
    // point, and the caller exits non-zero.
    auto stop_run = [&](const std::string& what) {
      report.failure = what + " (at " + std::to_string(to_seconds(drive->engine.now())) +
                       " s, in phase '" + spec.name + "')";
      report.cut = true;
    };
    try {
      if (i < skip) {
        timeless_result(*drive, workload, pr.result);
      } else if (spec.fast) {
        run_fast_phase(*drive, workload, spec, rng, progress, pr);
        if (saving_here) save();
      } else if (spec.rw == RwKind::kTrace)
        run_trace_phase(*drive, workload, spec, traces, progress, &slc_gauge, pr);
      else {
        report.cut = !run_timed_phase(drive, workload, spec, rng, progress, &slc_gauge,
                                      offered_iops(spec, report), next_cut, cycler, pr);
      }
    } catch (const DriveFailure& e) {
      // Worn out, or the watchdog: as a real drive turns read-only.
      stop_run(e.what());
    }
    if (drive->ftl && drive->ftl->all_dies_failed() && report.failure.empty())
      stop_run("all dies failed");
    if (resume && !stop) {
      // A timed phase next: the map fast writes made goes to flash first.
      if (i + 1 < workload.phases.size() && !workload.phases[i + 1].fast)
        drive->ftl->persist_fast_map();
      drive->ftl->resume_after_fast();
    }
    ios_before += ios_of(pr.result);
    mark_power(*drive, pr, false);  // idle_after is between phases, as the host sees it
    if (!report.cut && !stop && (i >= skip || resume) && spec.idle_after > 0) {
      Tick until = drive->engine.now() + spec.idle_after;
      if (!cycler) {
        drive->engine.advance_to(opt.stop_at && opt.stop_at < until ? opt.stop_at : until);
        report.cut = cut_due(*drive, opt.stop_at);
      } else {
        // Cuts by time come in idle time too; idle time counts powered time.
        for (Tick at = cycler->next_time(); at != 0 && at < until; at = cycler->next_time()) {
          drive->engine.advance_to(at);
          until += cycle_power(drive, *cycler, pr, true);
        }
        drive->engine.advance_to(until);
      }
    }
    const bool settle_here = saving_here && !spec.fast && !report.cut;
    if (settle_here) settle(*drive, "at the end of preconditioning (phase '" + spec.name + "')");

    pr.nand_after = drive->nand.stats();
    pr.ftl_after = drive->translation->stats();
    pr.buffer_waits = drive->controller.buffer_waits() - pr.buffer_waits;
    pr.wall_seconds = progress.wall_seconds() - wall_before;
    if (drive->ftl) {  // block-pool figures: the page-mapped FTL's
      pr.min_free_blocks = drive->ftl->min_free_blocks_seen();
      if (cycler) pr.min_free_blocks = std::min(pr.min_free_blocks, cycler->min_free_seen());
      const BlockManager::Census census = drive->ftl->blocks().census();
      pr.wear = census.wear;
      pr.valid_shares = census.valid;
      pr.slc_bytes_at_end = static_cast<double>(drive->ftl->slc_cache_bytes());
    }
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
  report.events += drive->engine.events_executed() - (drive == first_drive ? events_before : 0);
  report.sim_end = drive->engine.now();
  return i;
}

}  // namespace

RunReport run_workload(Drive& drive, const WorkloadSpec& workload, const RunOptions& opt) {
  RunReport report;
  report.phases.resize(workload.phases.size());
  Drive* d = &drive;
  const std::size_t end = run_phases(d, workload, opt, nullptr, report);
  if (report.cut) report.phases.resize(end + 1);
  return report;
}

RunReport run_with_faults(std::unique_ptr<Drive>& drive,
                          const std::function<std::unique_ptr<Drive>()>& build,
                          const WorkloadSpec& workload, const RunOptions& opt) {
  RunReport report;
  report.phases.resize(workload.phases.size());
  if (!drive->ftl) {
    // Fast phases, faults and power cuts act on the page-mapped FTL's state.
    for (const PhaseSpec& p : workload.phases)
      if (p.fast)
        throw std::runtime_error("phase '" + p.name +
                                 "': fast preconditioning needs ftl.kind page_mapped");
    if (!workload.power_cuts.empty() || !workload.power_cuts_after_ios.empty() ||
        workload.uncorrectable_rate > 0 || !workload.uncorrectable_at.empty() ||
        !workload.block_faults.empty() || !workload.die_faults.empty())
      throw std::runtime_error("workload '" + workload.name +
                               "': faults need ftl.kind page_mapped");
    Drive* d = drive.get();
    const std::size_t end = run_phases(d, workload, opt, nullptr, report);
    if (report.cut) report.phases.resize(end + 1);
    return report;
  }
  ReadRecovery::Injected faults;
  faults.rate = workload.uncorrectable_rate;
  for (const std::uint64_t offset : workload.uncorrectable_at)
    faults.pages.push_back(static_cast<Lpn>(offset / kSectorBytes));
  drive->ftl->inject_faults(faults);
  for (const auto& f : workload.block_faults) drive->ftl->fail_block_at(f.at, f.die, f.block);
  for (const auto& f : workload.die_faults) drive->ftl->fail_die_at(f.at, f.die);
  PowerCycler cycler(drive, build, workload, report);
  Drive* d = drive.get();
  const std::size_t end =
      run_phases(d, workload, opt, cycler.listed() > 0 ? &cycler : nullptr, report);
  if (report.cut && report.failure.empty()) report.phases.resize(end + 1);
  report.power_cuts_missed = cycler.listed() - cycler.done();
  return report;
}

VerifySummary verify_summary(const Drive& drive, const RunReport& report) {
  const FtlStats& s = drive.translation->stats();
  VerifySummary v;
  v.checks = s.verify_checks + report.verify_checks_before;
  v.wrong_data = s.verify_errors + report.verify_errors_before;
  v.reads_failed = s.host_reads_failed + report.reads_failed_before;
  for (const PowerCutReport& c : report.power_cuts) {
    v.cut_pages_lost += c.recovery.lost_pages;
    v.cut_loss_allowed += c.account.allowed_loss();
  }
  return v;
}

}  // namespace ssdtwin
