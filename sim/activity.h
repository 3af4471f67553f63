// What the drive's components do, told to whoever measures it (the power
// meter, power/power_meter.h): a NAND array operation, bytes on a flash
// channel, firmware time on a controller core. Timing models call these and
// never learn what the observer makes of them, so adding a component's
// power means adding an observer, not editing its timing code; a component
// whose observer pointer is null pays one branch per call site.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace ssdtwin {

enum class FlashActivity : std::uint8_t { kRead, kProgram, kErase };

class ActivityObserver {
 public:
  virtual ~ActivityObserver() = default;
  // `die`'s array runs an operation for `busy` (tR times its sensings,
  // tPROG, tBERS) on cells holding `bits` bits each, starting now.
  virtual void on_flash_op(std::uint32_t die, FlashActivity op, unsigned bits, Tick busy) = 0;
  // `bytes` cross a flash channel (data in or out, every sensing's result).
  virtual void on_channel_bytes(std::uint32_t channel, std::uint64_t bytes) = 0;
  // A controller core (or its ECC engine) works for `busy`.
  virtual void on_controller_busy(Tick busy) = 0;
};

}  // namespace ssdtwin
