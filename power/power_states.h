// The drive's power states and the host's policy for them: an operational
// state chosen by the host (its power budget caps the NAND operations that
// run at once), and a ladder of non-operational idle states the drive
// descends while it holds no command: NVMe Autonomous Power State
// Transition (the host's idle timeouts per state) or SATA link power
// management (host-initiated timeouts, device-initiated ones from the
// drive config, DevSleep). A command that finds the drive in an idle state
// waits for its exit latency. The meter is told each state's draw.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "power/power_config.h"
#include "power/power_meter.h"
#include "sim/event_engine.h"
#include "sim/power_gate.h"
#include "sim/timer.h"

namespace ssdtwin {

// What the host configures (workload power_management).
struct PowerPolicy {
  std::size_t operational = 0;  // state index
  struct Step {
    std::size_t state = 0;
    Tick idle = 0;  // time in the state above before moving here
  };
  std::vector<Step> host_idle;   // APST table / HIPM and DevSleep timeouts, deepest last
  bool device_initiated = true;  // SATA DIPM: the drive's own timers count too
};

struct PowerStateStats {
  std::vector<Tick> time_in_state;  // per state, since the drive was built
  std::uint64_t wakeups = 0;        // commands that found the drive idle
  Tick wake_delay = 0;              // summed over every command the wakes held up
};

class PowerStates final : public PowerGate, public EventTarget {
 public:
  // `set_flash_op_limit(n)`: at most n dies may run an array operation at
  // once (UINT32_MAX: no limit).
  PowerStates(EventEngine& engine, const PowerConfig& cfg, PowerMeter& meter, std::uint32_t dies,
              std::uint32_t cores, std::function<void(std::uint32_t)> set_flash_op_limit);

  // The host's settings, from now on (the drive holds no command).
  void configure(const PowerPolicy& policy);

  Tick on_command_arrival(Tick now) override;
  void on_device_idle(Tick now) override;
  void on_event(std::uint32_t kind, std::uint64_t arg) override;

  std::size_t current() const { return current_; }
  PowerStateStats stats() const;  // up to now
  // Dies that may work at once in operational state `s` within its budget:
  // what is left of max_power over the background and every core at work,
  // in units of one die's array draw (UINT32_MAX: no budget or room for all).
  std::uint32_t flash_op_limit(std::size_t s) const;

 private:
  void enter(std::size_t s, Tick now);
  void arm(Tick at);

  EventEngine& engine_;
  const PowerConfig& cfg_;
  PowerMeter& meter_;
  std::uint32_t dies_, cores_;
  std::function<void(std::uint32_t)> set_limit_;
  PowerPolicy policy_;
  std::vector<PowerPolicy::Step> ladder_;  // host and device timeouts merged
  std::size_t current_ = 0;
  Tick since_ = 0;       // in the current state since
  Tick idle_since_ = 0;  // the drive holds no command since
  Tick entered_at_ = 0;  // entry into the current idle state started
  Tick ready_at_ = 0;    // a wake under way ends here
  std::size_t next_step_ = 0;
  Timer step_;  // the next step down the ladder (a command cancels it)
  PowerStateStats stats_;
};

}  // namespace ssdtwin
