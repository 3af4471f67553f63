#include "power/power_config.h"

#include <algorithm>
#include <cstdlib>

#include "sim/config.h"
#include "sim/params.h"

namespace ssdtwin {

std::optional<double> parse_si(const std::string& text, char unit) {
  if (text.empty() || text.back() != unit) return std::nullopt;
  std::string num = text.substr(0, text.size() - 1);
  double scale = 1;
  if (!num.empty()) {
    switch (num.back()) {
      case 'k':
        scale = 1e3;
        break;
      case 'm':
        scale = 1e-3;
        break;
      case 'u':
        scale = 1e-6;
        break;
      case 'n':
        scale = 1e-9;
        break;
      case 'p':
        scale = 1e-12;
        break;
      default:
        scale = 0;
    }
    if (scale != 0)
      num.pop_back();
    else
      scale = 1;
  }
  while (!num.empty() && num.back() == ' ') num.pop_back();
  if (num.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || !(v >= 0) || v > 1e6) return std::nullopt;
  return v * scale;
}

namespace {

const ParamSection kPowerSection{
    "drive.power",
    "The power model (optional; absent or enabled: false, the drive runs exactly as without "
    "one): what each part of the drive draws, from datasheets, and the power states it "
    "declares (NVMe power-state descriptors, or the SATA link and device states).",
    {
        param::flag("enabled", "true", "false: no power model, as if the block were absent"),
        param::map("nand", "what each NAND die draws"),
        param::map("controller", "what the controller draws"),
        param::text("dram", "0W", "DRAM background draw (self-refresh / standby), in W (50mW)"),
        param::map("link", "what the host link's PHY draws"),
        param::time("linger", "0",
                    "after its last command the drive stays operational at least this long, "
                    "whatever the host's idle timeouts (firmware housekeeping)"),
        param::time("peak_window", "10ms",
                    "peak power is the highest mean over a window this long (a power meter's "
                    "sampling interval)"),
        param::maps("states", "the drive's power states, 1 to 6, the first operational"),
    }};

const ParamSection kNandSection{
    "drive.power.nand",
    "NAND power per die, from the datasheet's DC characteristics.",
    {
        param::text("vcc", nullptr, "core supply voltage, in V (3.3V)"),
        param::text("vccq", nullptr, "I/O supply voltage, in V (1.8V)"),
        param::text("read_current", nullptr, "array read current (ICC1), in A (25mA)"),
        param::text("program_current", nullptr, "array program current (ICC2), in A (25mA)"),
        param::text("erase_current", nullptr, "array erase current (ICC3), in A (25mA)"),
        param::text("io_current", nullptr,
                    "I/O current while data transfers at the bus rate (ICCQ), in A (20mA)"),
        param::text("standby_current", "0A", "standby current (ISB), in A (10uA)"),
    }};

const ParamSection kControllerSection{
    "drive.power.controller",
    "Controller power.",
    {
        param::text("idle", nullptr,
                    "the controller with every core idle (clocks, SRAM, PHYs' logic), in W (0.5W)"),
        param::text("core_active", nullptr,
                    "added per core (or the ECC engine) while it works, in W (0.2W)"),
    }};

const ParamSection kLinkSection{
    "drive.power.link",
    "Host link power.",
    {
        param::text("active", nullptr,
                    "the link PHY in its active state (PCIe L0, SATA PHY ready), in W (0.1W)"),
    }};

const ParamSection kStateSection{
    "drive.power.states[]",
    "One power state of the drive.",
    {
        param::text("name", nullptr, "the state's name, unique (PS0, active, slumber)"),
        param::flag("non_operational", "false",
                    "the drive runs no command here; a command waits for the exit latency"),
        param::text("max_power",
                    "(0W, no budget, on an operational state; required on a "
                    "non-operational one)",
                    "operational: the power budget, which caps the dies working at once; "
                    "non-operational: what the whole drive draws; in W (2.5W)"),
        param::time("entry_latency", "0", "time to enter the state"),
        param::time("exit_latency", "0", "time to leave the state for an operational one"),
        param::time("device_idle", "0",
                    "non-operational only: the drive enters the state by itself after this long "
                    "in the state above it, if the host allows it (SATA DIPM; 0: never)"),
    }};

// `text` of `key` in W, V or A, or a located error.
double si_value(const Params& n, const char* key, const std::string& text, char unit,
                const char* example) {
  const auto v = parse_si(text, unit);
  if (!v) n.fail(key, std::string("expected a value such as ") + example + ", got '" + text + "'");
  return *v;
}

double get_si(const Params& n, const char* key, char unit, const char* example) {
  return si_value(n, key, n.text(key), unit, example);
}

}  // namespace

std::vector<const ParamSection*> PowerConfig::params() {
  return {&kPowerSection, &kNandSection, &kControllerSection, &kLinkSection, &kStateSection};
}

double PowerConfig::die_active_w() const { return vcc_v * std::max({read_a, program_a, erase_a}); }

std::size_t PowerConfig::find(const std::string& name) const {
  for (std::size_t i = 0; i < states.size(); ++i)
    if (states[i].name == name) return i;
  return std::string::npos;
}

std::optional<PowerConfig> PowerConfig::from_config(const ConfigNode& power) {
  const Params p(power, kPowerSection);
  const bool enabled = p.flag("enabled");
  PowerConfig c;
  const Params nand = p.child("nand", kNandSection);
  c.vcc_v = get_si(nand, "vcc", 'V', "3.3V");
  c.vccq_v = get_si(nand, "vccq", 'V', "1.8V");
  // Every current is drawn at these: at 0 V the NAND would draw nothing.
  if (c.vcc_v <= 0) nand.fail("vcc", "expected a voltage above 0 V, such as 3.3V");
  if (c.vccq_v <= 0) nand.fail("vccq", "expected a voltage above 0 V, such as 1.8V");
  c.read_a = get_si(nand, "read_current", 'A', "25mA");
  c.program_a = get_si(nand, "program_current", 'A', "25mA");
  c.erase_a = get_si(nand, "erase_current", 'A', "25mA");
  c.io_a = get_si(nand, "io_current", 'A', "20mA");
  c.standby_a = get_si(nand, "standby_current", 'A', "10uA");
  const Params ctrl = p.child("controller", kControllerSection);
  c.controller_idle_w = get_si(ctrl, "idle", 'W', "0.5W");
  c.core_active_w = get_si(ctrl, "core_active", 'W', "0.2W");
  c.dram_w = get_si(p, "dram", 'W', "50mW");
  c.link_active_w = get_si(p.child("link", kLinkSection), "active", 'W', "0.1W");
  c.linger = p.time("linger");
  c.peak_window = p.time("peak_window");
  if (c.peak_window == 0) p.fail("peak_window", "expected a time above 0");
  const std::vector<Params> states = p.children("states", kStateSection);
  if (states.empty()) p.fail("states", "expected at least one power state");
  if (states.size() > kMaxPowerStates)
    p.fail("states", "expected at most " + std::to_string(kMaxPowerStates) + " power states");
  for (std::size_t i = 0; i < states.size(); ++i) {
    const Params& s = states[i];
    PowerStateSpec st;
    st.name = s.text("name");
    st.operational = !s.flag("non_operational");
    // A non-operational state's draw has no default: the key is required.
    if (!st.operational && !s.has("max_power")) s.fail("max_power", "required key is missing");
    st.max_power_w =
        si_value(s, "max_power", s.text("max_power", "0W"), 'W', st.operational ? "2.5W" : "25mW");
    st.entry_latency = s.time("entry_latency");
    st.exit_latency = s.time("exit_latency");
    st.device_idle = s.time("device_idle");
    if (i == 0 && !st.operational)
      s.fail("non_operational", "expected the first state to be operational");
    if (c.find(st.name) != std::string::npos) s.fail("name", "expected a name no other state has");
    if (st.operational && (st.device_idle > 0))
      s.fail("device_idle", "expected only on a non-operational state");
    c.states.push_back(st);
  }
  if (!enabled) return std::nullopt;
  return c;
}

}  // namespace ssdtwin
