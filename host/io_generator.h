// Drives one workload phase in closed loop, as fio does: keeps `iodepth`
// commands outstanding, issues the next one when one completes, and stops
// issuing at the phase's first stop condition. Measures what fio would:
// latency from issue to completion, per op, and throughput over time.
#pragma once

#include <cstdint>
#include <memory>

#include "host/host_interface.h"
#include "host/phase_result.h"
#include "host/io_pattern.h"
#include "host/workload.h"
#include "sim/histogram.h"
#include "sim/rng.h"
#include "sim/steady_state.h"
#include "sim/timeseries.h"

namespace ssdtwin {

class IoGenerator : public CompletionSink {
 public:
  // `gauge` (optional) is sampled into the interval series as IOs complete.
  IoGenerator(EventEngine& engine, HostInterface& hif, const PhaseSpec& spec, Rng& rng,
              Tick interval, std::uint64_t per_bytes, PhaseResult& result,
              const Gauge* gauge = nullptr);

  void start();
  bool finished() const { return stopped_ && outstanding_ == 0; }
  // Measurement starts after the phase's ramp time.
  bool measuring() const { return engine_.now() >= measure_from_; }
  // Fraction of the phase done, by its stop condition (for progress lines).
  double progress() const;
  void on_complete(std::uint32_t id) override;

 private:
  bool may_issue() const;
  void issue(std::uint32_t id);
  void finish();  // the last command has completed

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
};

}  // namespace ssdtwin
