#include "power/power_states.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ssdtwin {

namespace {
constexpr std::uint32_t kNoLimit = std::numeric_limits<std::uint32_t>::max();
}

PowerStates::PowerStates(EventEngine& engine, const PowerConfig& cfg, PowerMeter& meter,
                         std::uint32_t dies, std::uint32_t cores,
                         std::function<void(std::uint32_t)> set_flash_op_limit)
    : engine_(engine),
      cfg_(cfg),
      meter_(meter),
      dies_(dies),
      cores_(cores),
      set_limit_(std::move(set_flash_op_limit)),
      since_(engine.now()),
      idle_since_(engine.now()),
      step_(engine, this, 0) {
  stats_.time_in_state.assign(cfg.states.size(), 0);
  configure(PowerPolicy{});
}

std::uint32_t PowerStates::flash_op_limit(std::size_t s) const {
  const PowerStateSpec& st = cfg_.states[s];
  if (!st.operational || st.max_power_w <= 0) return kNoLimit;
  const double room =
      st.max_power_w - meter_.operational_background_w() - cores_ * cfg_.core_active_w;
  const double per_die = cfg_.die_active_w();
  if (per_die <= 0) return kNoLimit;
  const double n = std::floor(room / per_die);
  if (n >= dies_) return kNoLimit;
  return n < 1 ? 1 : static_cast<std::uint32_t>(n);  // the drive never stops altogether
}

void PowerStates::configure(const PowerPolicy& policy) {
  policy_ = policy;
  // One step per non-operational state with a timeout, from the host's
  // table or (device-initiated) the drive's; the shorter one wins.
  ladder_.clear();
  for (std::size_t s = 0; s < cfg_.states.size(); ++s) {
    if (cfg_.states[s].operational) continue;
    Tick idle = 0;
    bool any = false;
    for (const PowerPolicy::Step& h : policy.host_idle)
      if (h.state == s) idle = h.idle, any = true;
    if (policy.device_initiated && cfg_.states[s].device_idle > 0) {
      idle = any ? std::min(idle, cfg_.states[s].device_idle) : cfg_.states[s].device_idle;
      any = true;
    }
    if (any) ladder_.push_back({s, idle});
  }
  step_.cancel();
  enter(policy.operational, engine_.now());
  set_limit_(flash_op_limit(policy.operational));
  on_device_idle(engine_.now());
}

void PowerStates::enter(std::size_t s, Tick now) {
  stats_.time_in_state[current_] += now - since_;
  since_ = now;
  current_ = s;
  meter_.set_background(cfg_.states[s].operational ? meter_.operational_background_w()
                                                   : cfg_.states[s].max_power_w);
}

void PowerStates::arm(Tick at) { step_.arm(std::max(at, engine_.now())); }

void PowerStates::on_device_idle(Tick now) {
  step_.cancel();
  idle_since_ = now;
  next_step_ = 0;
  if (ladder_.empty()) return;
  arm(std::max(now + ladder_[0].idle, now + cfg_.linger));
}

void PowerStates::on_event(std::uint32_t, std::uint64_t arg) {
  if (!step_.fires(arg)) return;  // a command came since
  const Tick now = engine_.now();
  const std::size_t s = ladder_[next_step_++].state;
  entered_at_ = now;
  enter(s, now);
  if (next_step_ < ladder_.size())
    arm(now + cfg_.states[s].entry_latency + ladder_[next_step_].idle);
}

Tick PowerStates::on_command_arrival(Tick now) {
  step_.cancel();
  if (!cfg_.states[current_].operational) {
    // Waking: the drive finishes entering the state, then leaves it,
    // drawing operational power from the moment the command rings.
    const PowerStateSpec& st = cfg_.states[current_];
    ready_at_ = std::max(now, entered_at_ + st.entry_latency) + st.exit_latency;
    ++stats_.wakeups;
    enter(policy_.operational, now);
  }
  if (ready_at_ <= now) return now;
  stats_.wake_delay += ready_at_ - now;
  return ready_at_;
}

PowerStateStats PowerStates::stats() const {
  PowerStateStats s = stats_;
  s.time_in_state[current_] += engine_.now() - since_;
  return s;
}

}  // namespace ssdtwin
