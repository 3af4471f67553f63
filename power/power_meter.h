// Turns the drive's activity into power, as a meter on its supply would
// see it: each NAND operation, channel transfer and stretch of firmware
// work adds its energy when it starts, and the background (every part idle
// in an operational state, or a non-operational state's draw) accrues with
// time. Energy is kept per part; peak power is the highest mean over one
// `peak_window`.
#pragma once

#include <cstdint>

#include "power/power_config.h"
#include "sim/activity.h"
#include "sim/event_engine.h"

namespace ssdtwin {

// Joules since the drive was built, by where they went.
struct EnergyTotals {
  double nand_array = 0;  // array reads, programs, erases
  double nand_io = 0;     // flash channel transfers
  double controller = 0;  // firmware cores and ECC at work
  double background = 0;  // idle draw of the state the drive was in
  double total() const { return nand_array + nand_io + controller + background; }
};

class PowerMeter final : public ActivityObserver {
 public:
  PowerMeter(const EventEngine& engine, const PowerConfig& cfg, std::uint32_t dies,
             double bus_bytes_per_s);

  void on_flash_op(std::uint32_t die, FlashActivity op, unsigned bits, Tick busy) override;
  void on_channel_bytes(std::uint32_t channel, std::uint64_t bytes) override;
  void on_controller_busy(Tick busy) override;

  // The idle draw changes now (a power state entered or left).
  void set_background(double watts);
  // Every part idle in an operational state.
  double operational_background_w() const { return operational_w_; }
  double flash_op_joules(FlashActivity op, Tick busy) const;
  double channel_joules(std::uint64_t bytes) const {
    return static_cast<double>(bytes) * io_j_per_byte_;
  }

  EnergyTotals totals() const { return totals_at(engine_.now()); }
  // Up to `t`, no earlier than the last activity (the background accrues
  // linearly until the next).
  EnergyTotals totals_at(Tick t) const;
  // Peak power from now on: windows start here.
  void reset_peak();
  // The highest mean over a whole window since reset_peak (the mean so far
  // while no window has closed).
  double peak_w() const;

 private:
  void advance();  // background and windows up to now
  void add(double joules, double& part);

  const EventEngine& engine_;
  const PowerConfig& cfg_;
  double operational_w_ = 0;
  double io_j_per_byte_ = 0;
  double level_w_ = 0;  // background draw now
  EnergyTotals e_;
  Tick last_ = 0;  // background accrued up to here
  Tick win_start_ = 0;
  double win_j_ = 0;  // energy of the open window so far
  double peak_w_ = 0;
  bool window_closed_ = false;
};

}  // namespace ssdtwin
