// The drive config's `power:` block: what each part of the drive draws
// (from datasheets, marked derived or fitted in the YAML) and the power
// states the drive declares (NVMe identify power-state descriptors, or the
// SATA link and device states). Absent, or `enabled: false`: no power model,
// and the drive runs exactly as without one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/time.h"

namespace ssdtwin {

class ConfigNode;
struct ParamSection;

struct PowerStateSpec {
  std::string name;
  // Operational: the power budget (0: none given); non-operational: what
  // the whole drive draws there.
  double max_power_w = 0;
  bool operational = true;
  Tick entry_latency = 0, exit_latency = 0;
  // Device-initiated entry (SATA DIPM): the drive goes here by itself after
  // this long in the state above it, if the host allows it (0: never).
  Tick device_idle = 0;
};

// Power states a drive may declare: each has its own column in the flat
// per-phase metrics (power.stateK_s), which are declared before any drive is
// read. NVMe allows 32; drives declare 3-5 (SATA: active, partial, slumber,
// DevSleep), and more than this is refused with its location.
inline constexpr std::size_t kMaxPowerStates = 6;

struct PowerConfig {
  // NAND, per die (datasheet DC characteristics): supply voltages and the
  // currents of array read, program and erase (ICC1-3), I/O during data
  // transfer at the bus rate (ICCQ), standby (ISB).
  double vcc_v = 0, vccq_v = 0;
  double read_a = 0, program_a = 0, erase_a = 0, io_a = 0, standby_a = 0;
  double controller_idle_w = 0;  // controller with every core idle (clocks, SRAM, PHYs' logic)
  double core_active_w = 0;      // added per core (or the ECC engine) while it works
  double dram_w = 0;             // DRAM background (self-refresh / standby)
  double link_active_w = 0;      // host link PHY in its active state (PCIe L0, SATA PHY ready)
  // After its last command the drive stays operational at least this long,
  // whatever the host's idle timeouts (firmware housekeeping).
  Tick linger = 0;
  // Peak power is the highest mean over a window this long (a power
  // meter's sampling interval).
  Tick peak_window = 10 * kMs;
  std::vector<PowerStateSpec> states;  // [0]: the first operational state

  // The operational state's background draw: every part idle.
  double background_w(std::uint32_t dies) const {
    return controller_idle_w + dram_w + link_active_w + dies * vcc_v * standby_a;
  }
  // What one die draws while its array works (the largest of read,
  // program and erase): the unit of a power budget.
  double die_active_w() const;
  std::size_t find(const std::string& name) const;  // npos when absent

  // `power` is the drive config's `power` map; nullopt with `enabled: false`.
  static std::optional<PowerConfig> from_config(const ConfigNode& power);
  // Its keys, declared (sim/params.h).
  static std::vector<const ParamSection*> params();
};

// "2.5W", "25mW", "3.3V", "25mA", "10uA": the value in W, V or A, or
// nullopt when `text` is not a number with that unit (prefixes k, m, u, n, p).
std::optional<double> parse_si(const std::string& text, char unit);

}  // namespace ssdtwin
