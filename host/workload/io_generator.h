// Drives one workload phase in closed loop, as fio does: keeps `iodepth`
// commands outstanding, issues the next one when one completes, and stops
// issuing at the phase's first stop condition. Measures what fio would:
// latency from issue to completion, per op, and throughput over time.
//
// With an offered rate (open loop, as vdBench's load curves): IOs arrive at
// that rate (Poisson or evenly spaced) whatever the device does; an arrival
// is issued at once when fewer than `iodepth` commands are out, else it
// waits on the host in arrival order. Arrivals stop at the stop condition;
// those still waiting then are counted (left_on_host), not issued.
#pragma once

#include <cstdint>
#include <memory>

#include "host/host_interface.h"
#include "host/workload/phase_result.h"
#include "host/workload/io_pattern.h"
#include "host/workload/workload.h"
#include "sim/histogram.h"
#include "sim/rng.h"
#include "sim/fifo.h"
#include "sim/steady_state.h"
#include "sim/timeseries.h"

namespace ssdtwin {

class IoGenerator : public CompletionSink, public EventTarget {
 public:
  // `gauge` (optional) is sampled into the interval series as IOs complete;
  // `offered_iops` > 0 runs the phase open loop at that rate.
  IoGenerator(EventEngine& engine, HostInterface& hif, const PhaseSpec& spec, Rng& rng,
              Tick interval, std::uint64_t per_bytes, PhaseResult& result,
              const Gauge* gauge = nullptr, double offered_iops = 0);

  void start();
  bool finished() const { return stopped_ && outstanding_ == 0; }
  // Measurement starts after the phase's ramp time.
  bool measuring() const { return engine_.now() >= measure_from_; }
  // Fraction of the phase done, by its stop condition (for progress lines).
  double progress() const;
  void on_complete(std::uint32_t id) override;
  void on_event(std::uint32_t kind, std::uint64_t arg) override;  // an arrival

 private:
  bool may_issue() const;
  void issue(std::uint32_t id);
  void finish();  // the last command has completed
  Tick next_gap();
  void stop_arrivals();

  EventEngine& engine_;
  HostInterface& hif_;
  const PhaseSpec& spec_;
  IoPattern pattern_;
  PhaseResult& result_;
  const Gauge* gauge_;
  std::uint64_t issued_ios_ = 0, issued_bytes_ = 0;
  std::uint32_t outstanding_ = 0;
  Tick phase_start_ = 0;
  Tick measure_from_ = 0;
  bool stopped_ = false;
  // Open loop.
  Rng& rng_;
  double offered_iops_ = 0;
  std::vector<std::uint32_t> free_ids_;   // command slots not in use
  Fifo<Tick> waiting_;                    // arrival times waiting on the host
  Tick issue_arrival_ = 0;                // arrival time of the command being issued
};

}  // namespace ssdtwin
