#include "power/power_config.h"

#include <algorithm>
#include <cstdlib>

#include "sim/config.h"

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

double get_si(const ConfigNode& n, const std::string& key, char unit, const char* example,
              std::optional<double> def = std::nullopt) {
  if (!n.has(key) && def) {
    n.get_string(key, std::string("0") + unit);  // the default, in the resolved config
    return *def;
  }
  const std::string text = n.get_string(key);
  const auto v = parse_si(text, unit);
  if (!v) n.fail(key, std::string("expected a value such as ") + example + ", got '" + text + "'");
  return *v;
}

}  // namespace

double PowerConfig::die_active_w() const { return vcc_v * std::max({read_a, program_a, erase_a}); }

std::size_t PowerConfig::find(const std::string& name) const {
  for (std::size_t i = 0; i < states.size(); ++i)
    if (states[i].name == name) return i;
  return std::string::npos;
}

std::optional<PowerConfig> PowerConfig::from_config(const ConfigNode& drive) {
  if (!drive.has("power")) return std::nullopt;
  const ConfigNode p = drive.child("power");
  const bool enabled = p.get_bool("enabled", true);
  PowerConfig c;
  const ConfigNode nand = p.child("nand");
  c.vcc_v = get_si(nand, "vcc", 'V', "3.3V");
  c.vccq_v = get_si(nand, "vccq", 'V', "1.8V");
  // Every current is drawn at these: at 0 V the NAND would draw nothing.
  if (c.vcc_v <= 0) nand.fail("vcc", "expected a voltage above 0 V, such as 3.3V");
  if (c.vccq_v <= 0) nand.fail("vccq", "expected a voltage above 0 V, such as 1.8V");
  c.read_a = get_si(nand, "read_current", 'A', "25mA");
  c.program_a = get_si(nand, "program_current", 'A', "25mA");
  c.erase_a = get_si(nand, "erase_current", 'A', "25mA");
  c.io_a = get_si(nand, "io_current", 'A', "20mA");
  c.standby_a = get_si(nand, "standby_current", 'A', "10uA", 0.0);
  const ConfigNode ctrl = p.child("controller");
  c.controller_idle_w = get_si(ctrl, "idle", 'W', "0.5W");
  c.core_active_w = get_si(ctrl, "core_active", 'W', "0.2W");
  c.dram_w = get_si(p, "dram", 'W', "50mW", 0.0);
  c.link_active_w = get_si(p.child("link"), "active", 'W', "0.1W");
  c.linger = p.get_time("linger", 0);
  c.peak_window = p.get_time("peak_window", 10 * kMs);
  if (c.peak_window == 0) p.fail("peak_window", "expected a time above 0");
  const std::vector<ConfigNode> states = p.children("states");
  if (states.empty()) p.fail("states", "expected at least one power state");
  if (states.size() > kMaxPowerStates)
    p.fail("states", "expected at most " + std::to_string(kMaxPowerStates) + " power states");
  for (std::size_t i = 0; i < states.size(); ++i) {
    const ConfigNode& s = states[i];
    PowerStateSpec st;
    st.name = s.get_string("name");
    st.operational = !s.get_bool("non_operational", false);
    st.max_power_w = st.operational ? get_si(s, "max_power", 'W', "2.5W", 0.0)
                                    : get_si(s, "max_power", 'W', "25mW");
    st.entry_latency = s.get_time("entry_latency", 0);
    st.exit_latency = s.get_time("exit_latency", 0);
    st.device_idle = s.get_time("device_idle", 0);
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
