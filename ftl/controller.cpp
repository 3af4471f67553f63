#include "ftl/controller.h"

#include <algorithm>

#include "sim/config.h"
#include "sim/params.h"
#include "sim/state_archive.h"

namespace ssdtwin {

const ParamSection& ControllerConfig::params() {
  static const ParamSection kSection{
      "drive.controller",
      "The controller: firmware cores and the firmware time of commands, pages, NAND operations "
      "and GC moves, the ECC decode, and the write buffer.",
      {
          param::integer("cores", "1", 1, 64, "cores", "firmware cores; a command occupies one"),
          param::time("command_time", nullptr, "firmware time per command on one core"),
          param::time("write_command_time", "(command_time)",
                      "firmware time per write command (buffer allocation, map update, program "
                      "scheduling); cores / write_command_time caps random writes"),
          param::time("flash_op_time", "0",
                      "firmware time per NAND operation (issue and completion) on the same "
                      "cores, so flash traffic delays queued host commands"),
          param::time("gc_move_time", "0",
                      "firmware time per 4KiB slot that GC or folding moves (validity check, map "
                      "update, program queueing) on the same cores"),
          param::time("page_time", "0",
                      "firmware time per 4KiB page of a command (FTL lookups and updates)"),
          param::time("ecc_decode", "0",
                      "ECC (LDPC) decode latency per flash read, before its data can leave"),
          param::bytes("write_buffer", nullptr,
                       "controller memory holding host data until it is programmed; at least "
                       "two program units"),
          param::bytes("write_chunk", "(the smaller of 128KiB and write_buffer)",
                       "write data enters the buffer in chunks of this size as space frees (a "
                       "command larger than the buffer streams through it); whole 4KiB pages"),
      }};
  return kSection;
}

ControllerConfig ControllerConfig::from_config(const ConfigNode& node) {
  const Params p(node, params());
  ControllerConfig c;
  c.cores = static_cast<std::uint32_t>(p.integer("cores"));
  c.command_time = p.time("command_time");
  c.write_command_time = p.time("write_command_time", c.command_time);
  c.flash_op_time = p.time("flash_op_time");
  c.gc_move_time = p.time("gc_move_time");
  c.page_time = p.time("page_time");
  c.ecc_decode = p.time("ecc_decode");
  const std::uint64_t buffer = p.bytes("write_buffer");
  const std::uint64_t chunk = p.bytes("write_chunk", std::min<std::uint64_t>(128 * 1024, buffer));
  if (chunk < kSectorBytes || chunk % kSectorBytes != 0)
    p.fail("write_chunk", "expected a whole number of 4 KiB pages");
  if (chunk > buffer) p.fail("write_chunk", "expected at most write_buffer");
  c.write_chunk_pages = static_cast<std::uint32_t>(chunk / kSectorBytes);
  return c;
}

Controller::Controller(EventEngine& engine, FlashTranslation& ftl, const ControllerConfig& cfg)
    : engine_(engine),
      ftl_(ftl),
      cfg_(cfg),
      cores_(cfg.cores),
      processed_lane_(engine.add_lane()),
      data_lane_(engine.add_lane()) {
  ftl_.set_listener(this);
  plp_ = ftl_.durable_buffer();
  zoned_ = ftl_.zoned();
  if (cfg_.gc_move_time > 0) ftl_.set_gc_firmware(&cores_, cfg_.gc_move_time);
}

void Controller::submit(std::uint32_t id) {
  HostCommand& c = host_->command(id);
  resolve(c);
  // The command runs on the core that frees up first (firmware processes
  // commands run-to-completion, one per core at a time). One the zones
  // refuse costs its firmware time and completes with its status.
  if ((zoned_ || c.zone != ZoneAction::kNone) && !check_zoned(c)) [[unlikely]] {
    host_->complete(id, cores_.run(engine_.now(), cfg_.command_time));
    return;
  }
  const std::uint32_t pages = c.bytes / kSectorBytes;
  if (c.op >= IoOp::kFlush) {  // no data, no mapping: the command's firmware time only
    engine_.schedule_at(cores_.run(engine_.now(), cfg_.command_time), this, kProcessed, id,
                        processed_lane_);
    return;
  }
  const Lpn first = c.first_page;
  ftl_.prefetch_entries(first, pages, c.op == IoOp::kWrite);
  // A deallocation marks whole map segments: its cost follows the
  // segments it touches (map_access_time), not its pages.
  const Tick per_page = c.op == IoOp::kTrim ? 0 : cfg_.page_time * pages;
  const Tick command = c.op == IoOp::kWrite ? cfg_.write_command_time : cfg_.command_time;
  const Tick work = command + per_page + ftl_.map_access_time(first, pages);
  const Tick done = cores_.run(engine_.now(), work);
  engine_.schedule_at(done, this, kProcessed, id, processed_lane_);
}

void Controller::on_submit(const FlashTxn&) {
  if (cfg_.flash_op_time == 0) return;
  if (in_data_in_) ++ops_in_handler_;
  cores_.run(engine_.now(), cfg_.flash_op_time);
}

void Controller::on_event(std::uint32_t kind, std::uint64_t arg) {
  const auto id = static_cast<std::uint32_t>(arg);
  HostCommand& c = host_->command(id);
  const Lpn first = c.first_page;
  const std::uint32_t pages = c.bytes / kSectorBytes;
  if (kind == kWriteDataIn) {  // one chunk, in order
    const std::uint32_t n = chunk_pages(pages, c.arrived);
    // Firmware runs the handler to completion: a program unit this data
    // completes is built and issued before the command's completion is
    // posted, so that command waits for the flash work it set off.
    ops_in_handler_ = 0;
    in_data_in_ = true;
    ftl_.write(first + c.arrived, n, c.handle);
    in_data_in_ = false;
    c.arrived += n;
    if (c.arrived != pages) return;
    if (c.fua && !plp_)
      complete_when_durable(id, ftl_.buffered_seq());
    else
      host_->complete(id, engine_.now() + ops_in_handler_ * cfg_.flash_op_time);
    return;
  }
  switch (c.op) {
    case IoOp::kRead: {
      const ReadPlan plan = ftl_.read(id, first, pages);
      c.data_done = engine_.now();
      if (plan.immediate_bytes > 0)
        c.data_done = host_->transfer_to_host(plan.immediate_bytes, engine_.now());
      c.parts_pending = plan.flash_txns;
      c.deferred = plan.deferred;
      if (c.parts_pending == 0 && c.deferred == 0) host_->complete(id, c.data_done);
      break;
    }
    case IoOp::kWrite:
      if (c.rmw) {
        // Partly written pages: read their old data first (a flash read,
        // or a map load and then one), then merge and write as a whole.
        c.parts_pending = 0;
        c.deferred = 0;
        auto read_old = [&](Lpn lpn) {
          const ReadPlan plan = ftl_.read(id, lpn, 1);
          c.parts_pending += plan.flash_txns;
          c.deferred += plan.deferred;
        };
        const Lpn last = first + pages - 1;
        if (c.rmw & 1) read_old(first);
        if ((c.rmw & 2) && !(last == first && (c.rmw & 1))) read_old(last);  // one read per page
        if (c.parts_pending > 0 || c.deferred > 0) break;
      }
      admit_write(id);
      break;
    case IoOp::kTrim:
      ftl_.trim(first, pages);
      host_->complete(id, engine_.now());
      break;
    case IoOp::kFlush:
      // Every write completed before it has its data in the buffer by
      // now: all that the buffer holds (partly arrived writes included,
      // as firmware flushes the whole cache) goes to flash.
      if (plp_)
        host_->complete(id, engine_.now());
      else
        complete_when_durable(id, ftl_.buffered_seq());
      break;
    case IoOp::kZoneMgmt:
      // Done now, or once its flash work is (on_zone_done).
      if (!ftl_.zone_manage(id, c.zone, c.first_page, c.status)) host_->complete(id, engine_.now());
      break;
  }
}

bool Controller::check_zoned(HostCommand& c) {
  const Lpn asked = c.first_page;
  c.status = ftl_.check_command(c);
  // An append's data goes where the zone's write pointer was: the
  // completion tells the host (offset, in the namespace).
  if (c.first_page != asked) c.offset += std::uint64_t{c.first_page - asked} * kSectorBytes;
  return c.status == CmdStatus::kSuccess;
}

void Controller::on_zone_done(std::uint64_t cmd) {
  host_->complete(static_cast<std::uint32_t>(cmd), engine_.now());
}

void Controller::complete_when_durable(std::uint32_t id, std::uint64_t seq) {
  if (ftl_.durable_seq() >= seq) {
    host_->complete(id, engine_.now());
    return;
  }
  durable_waits_.push({id, seq});
  ftl_.make_durable(seq);  // forced out now, whoever waits ahead of it
}

void Controller::on_durable() {
  const std::uint64_t durable = ftl_.durable_seq();
  while (!durable_waits_.empty() && durable_waits_.front().seq <= durable)
    host_->complete(durable_waits_.pop().id, engine_.now());
  // Last: make_durable may call back at once (stale entries need no program).
  if (!durable_waits_.empty()) ftl_.make_durable(durable_waits_.front().seq);
}

void Controller::admit_write(std::uint32_t id) {
  HostCommand& c = host_->command(id);
  c.admitted = 0;
  c.arrived = 0;
  if (!waiting_.empty() || !admit_chunks(id)) {
    ++buffer_waits_;
    waiting_.push(id);
  }
}

bool Controller::admit_chunks(std::uint32_t id) {
  HostCommand& c = host_->command(id);
  const std::uint32_t pages = c.bytes / kSectorBytes;
  while (c.admitted < pages) {
    const std::uint32_t n = chunk_pages(pages, c.admitted);
    if (!ftl_.reserve_buffer(n)) return false;
    // Once, when the first chunk gets in (a write waiting for buffer space
    // is retried at every program's completion, and loads nothing then).
    if (c.admitted == 0) ftl_.prefetch_old_blocks(c.first_page, pages);
    c.admitted += n;
    // Each chunk is its own data phase (on SATA, a DMA Setup with an offset).
    const Tick end = host_->transfer_to_device(std::uint64_t{n} * kSectorBytes, engine_.now());
    engine_.schedule_at(end, this, kWriteDataIn, id, data_lane_);
  }
  return true;
}

void Controller::on_read_data(std::uint64_t cmd, std::uint32_t bytes) {
  const auto id = static_cast<std::uint32_t>(cmd);
  HostCommand& c = host_->command(id);
  if (c.op == IoOp::kWrite) {  // the old data of a read-modify-write is in
    if (--c.parts_pending == 0 && c.deferred == 0) admit_write(id);
    return;
  }
  const Tick end = host_->transfer_to_host(bytes, engine_.now() + cfg_.ecc_decode);
  if (activity_) activity_->on_controller_busy(cfg_.ecc_decode);
  c.data_done = std::max(c.data_done, end);
  if (--c.parts_pending == 0 && c.deferred == 0) host_->complete(id, c.data_done);
}

void Controller::on_read_resumed(std::uint64_t cmd, const ReadPlan& plan) {
  const auto id = static_cast<std::uint32_t>(cmd);
  HostCommand& c = host_->command(id);
  --c.deferred;
  c.parts_pending += plan.flash_txns;
  if (c.op == IoOp::kWrite) {
    if (c.parts_pending == 0 && c.deferred == 0) admit_write(id);
    return;
  }
  if (plan.immediate_bytes > 0)
    c.data_done =
        std::max(c.data_done, host_->transfer_to_host(plan.immediate_bytes, engine_.now()));
  if (c.parts_pending == 0 && c.deferred == 0) host_->complete(id, c.data_done);
}

void Controller::on_buffer_space() {
  // Admit waiting writes in order; stop at the first whose next chunk does
  // not fit, so a large write is not starved by small ones.
  while (!waiting_.empty() && admit_chunks(waiting_.front())) waiting_.pop();
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void Controller::archive(StateArchive& ar) {
  if (!waiting_.empty() || ops_in_handler_ != 0 || in_data_in_)
    throw std::logic_error("drive-state snapshot of a controller with commands under way");
  ar.vec(cores_.free_at(), true);
  ar.pod(buffer_waits_);
}

}  // namespace ssdtwin
