#include "power/power_meter.h"

#include <algorithm>

namespace ssdtwin {

PowerMeter::PowerMeter(const EventEngine& engine, const PowerConfig& cfg, std::uint32_t dies,
                       double bus_bytes_per_s)
    : engine_(engine),
      cfg_(cfg),
      operational_w_(cfg.background_w(dies)),
      // ICCQ is drawn while the bus toggles: one byte per transfer at the
      // channel's rate.
      io_j_per_byte_(cfg.vccq_v * cfg.io_a / bus_bytes_per_s),
      level_w_(operational_w_),
      last_(engine.now()),
      win_start_(engine.now()) {}

double PowerMeter::flash_op_joules(FlashActivity op, Tick busy) const {
  const double amps = op == FlashActivity::kRead      ? cfg_.read_a
                      : op == FlashActivity::kProgram ? cfg_.program_a
                                                      : cfg_.erase_a;
  return cfg_.vcc_v * amps * to_seconds(busy);
}

void PowerMeter::on_flash_op(std::uint32_t, FlashActivity op, unsigned, Tick busy) {
  add(flash_op_joules(op, busy), e_.nand_array);
}

void PowerMeter::on_channel_bytes(std::uint32_t, std::uint64_t bytes) {
  add(channel_joules(bytes), e_.nand_io);
}

void PowerMeter::on_controller_busy(Tick busy) {
  add(cfg_.core_active_w * to_seconds(busy), e_.controller);
}

void PowerMeter::add(double joules, double& part) {
  advance();
  part += joules;
  win_j_ += joules;
}

void PowerMeter::advance() {
  const Tick now = engine_.now();
  const Tick w = cfg_.peak_window;
  const double w_s = to_seconds(w);
  if (now >= win_start_ + w) {
    const double tail = level_w_ * to_seconds(win_start_ + w - last_);
    e_.background += tail;
    peak_w_ = std::max(peak_w_, (win_j_ + tail) / w_s);
    window_closed_ = true;
    win_start_ += w;
    last_ = win_start_;
    win_j_ = 0;
    // Whole windows of background alone, at once: an idle drive costs
    // nothing per window.
    const Tick whole = (now - win_start_) / w;
    if (whole > 0) {
      e_.background += level_w_ * to_seconds(whole * w);
      peak_w_ = std::max(peak_w_, level_w_);
      win_start_ += whole * w;
      last_ = win_start_;
    }
  }
  const double part = level_w_ * to_seconds(now - last_);
  e_.background += part;
  win_j_ += part;
  last_ = now;
}

void PowerMeter::set_background(double watts) {
  advance();
  level_w_ = watts;
}

EnergyTotals PowerMeter::totals_at(Tick at) const {
  EnergyTotals t = e_;
  if (at > last_) t.background += level_w_ * to_seconds(at - last_);
  return t;
}

void PowerMeter::reset_peak() {
  advance();
  win_start_ = engine_.now();
  win_j_ = 0;
  peak_w_ = 0;
  window_closed_ = false;
}

double PowerMeter::peak_w() const {
  if (window_closed_) return peak_w_;
  const Tick open = engine_.now() - win_start_;
  return open > 0 ? (win_j_ + level_w_ * to_seconds(engine_.now() - last_)) / to_seconds(open)
                  : level_w_;
}

}  // namespace ssdtwin
