// The part of power management that is timing: a command that finds the
// drive in a non-operational power state waits for it to wake, and the
// drive falls asleep only when it holds no command. The host interface
// asks through this; power/power_states.h decides.
#pragma once

#include "sim/time.h"

namespace ssdtwin {

class PowerGate {
 public:
  virtual ~PowerGate() = default;
  // A host command reaches the device at `now`: the time the controller
  // can take it (now, or when the drive has left its idle state).
  virtual Tick on_command_arrival(Tick now) = 0;
  // The device holds no command any more (its idle timers start).
  virtual void on_device_idle(Tick now) = 0;
};

}  // namespace ssdtwin
