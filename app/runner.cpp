#include "app/runner.h"

#include <stdexcept>

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

}  // namespace

RunReport run_workload(Drive& drive, const WorkloadSpec& workload, const RunOptions& opt) {
  RunReport report;
  report.phases.resize(workload.phases.size());
  Rng rng(workload.seed);
  Progress progress(opt.progress);
  const SlcGauge slc_gauge(drive.ftl);
  const std::uint64_t events_before = drive.engine.events_executed();

  for (std::size_t i = 0; i < workload.phases.size(); ++i) {
    const PhaseSpec& spec = workload.phases[i];
    PhaseReport& pr = report.phases[i];
    pr.spec = &spec;
    pr.nand_before = drive.nand.stats();
    pr.ftl_before = drive.ftl.stats();
    const std::uint64_t waits_before = drive.controller.buffer_waits();
    const double wall_before = progress.wall_seconds();

    IoGenerator gen(drive.engine, drive.hif, spec, rng, workload.interval, workload.per_bytes,
                    pr.result, &slc_gauge);
    gen.start();
    std::uint32_t tick = 0;
    bool ramped = spec.ramp_time == 0;
    while (!gen.finished()) {
      if (!ramped && gen.measuring()) {
        // Counters of the drive count from the end of the ramp, like the host's.
        ramped = true;
        pr.nand_before = drive.nand.stats();
        pr.ftl_before = drive.ftl.stats();
      }
      if (!drive.engine.step())
        throw std::runtime_error("simulation stalled in phase '" + spec.name +
                                 "': commands outstanding but no event pending");
      if ((++tick & 0x3FFF) == 0) progress.update(spec.name, drive.engine.now(), gen.progress());
    }
    if (spec.idle_after > 0) drive.engine.advance_to(drive.engine.now() + spec.idle_after);

    pr.nand_after = drive.nand.stats();
    pr.ftl_after = drive.ftl.stats();
    pr.buffer_waits = drive.controller.buffer_waits() - waits_before;
    pr.min_free_blocks = drive.ftl.min_free_blocks_seen();
    pr.wear = drive.ftl.blocks().wear();
    pr.wall_seconds = progress.wall_seconds() - wall_before;
    pr.slc_bytes_at_end = static_cast<double>(drive.ftl.slc_cache_bytes());
  }
  progress.finish();
  report.wall_seconds = progress.wall_seconds();
  report.events = drive.engine.events_executed() - events_before;
  report.sim_end = drive.engine.now();
  return report;
}

}  // namespace ssdtwin
