// What the controller does with a read's bit errors: ECC decode, read-retry
// steps, RAIN rebuild, and read reclaim.
//
// Every flash read passes through here when it completes, if the drive has
// a NAND error model (nand/error_model.h). The first completion decides,
// from the block's wear and age, how many retry steps the data needs before
// its codewords decode: one uniform draw against the failure probability of
// each step in turn (the steps only lower the RBER, so one draw orders them).
// Each step is then a real re-read, queued on the die with its own sensing
// count. Beyond the last step the read is uncorrectable: with RAIN its page
// is rebuilt from the other members of its stripe (ftl/blocks/rain_stripes.h),
// read on their die, then XORed; the rebuilt page is rewritten; a second
// failure in the stripe loses the data, reported, never returned as good.
//
// Decode outcome per codeword: the number of bit errors in n bits at rate
// RBER is Poisson(n * RBER) (binomial with tiny p); the decode fails when it
// exceeds the correctable count. An LDPC decoder has no hard limit, so its
// `correctable_bits` is the equivalent hard-decision capability.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "ftl/address.h"
#include "ftl/ftl_core.h"
#include "nand/error_model.h"
#include "sim/event_engine.h"
#include "sim/rng.h"

namespace ssdtwin {

// Probability that a read of `bytes` at raw bit error rate `rber` fails to
// decode: any of its codewords has more errors than the ECC corrects.
double decode_fail_probability(const ReadRecoveryConfig& ecc, double rber, std::uint32_t bytes);

// What recovery asks of the FTL.
class RecoveryListener {
 public:
  virtual ~RecoveryListener() = default;
  // A read recovery held (retried or rebuilt) is done: `t->status` says how.
  virtual void on_read_recovered(FlashTxn* t) = 0;
  // Die-page `page` of `block` was rebuilt: its valid data is written again.
  virtual void rewrite_page(std::uint32_t die, std::uint32_t block, std::uint32_t page) = 0;
  // Read reclaim: relocate the block's data before its errors grow further.
  virtual void reclaim_block(std::uint32_t die, std::uint32_t block) = 0;
};

class ReadRecovery : public EventTarget {
 public:
  // `model` may be null (no errors): then every read is clean and this costs
  // one branch per read.
  ReadRecovery(FtlCore& core, const ErrorModel* model);
  void set_listener(RecoveryListener* l) { listener_ = l; }
  bool enabled() const { return model_ != nullptr || injecting() || failed_blocks_; }
  // A block stopped working (a workload fault): its reads fail from now on.
  void note_failed_block() { failed_blocks_ = true; }

  // Injected faults (a workload's faults.uncorrectable): reads that fail
  // every decode, at `rate` per flash read, and the next flash read of
  // each logical page in `pages` (once each). Drawn from the error stream.
  struct Injected {
    double rate = 0;
    std::vector<Lpn> pages;  // sorted, not yet hit
  };
  void inject(Injected faults);
  // A new stream for power cycle `cycle` (after a power cut).
  void reseed(std::uint32_t cycle) { rng_.reseed(seed(cycle)); }
  const Injected& injected() const { return injected_; }

  // A program finished: the retention clock of its block restarts.
  void on_programmed(const FlashTxn& t) {
    if (model_) core_.blocks.history(t.die, t.block).programmed_at = core_.engine.now();
  }
  // A data or map read finished on its die. True: deliver it now (its status
  // is final). False: recovery keeps it (a retry re-read or a rebuild under
  // way) and returns it through RecoveryListener::on_read_recovered.
  bool on_read(FlashTxn* t);
  // A rebuild's read of another stripe member finished.
  void on_member_read(FlashTxn* t);
  // `die` failed, with stripes across dies (ftl.rain.span: dies): every
  // die-page of it holding valid data is rebuilt in the background (the
  // same page read on the stripe's other members, XORed) and its data
  // written again on the live dies, ftl.rain.rebuild_in_flight at a time.
  // Reads of its pages meanwhile are served degraded (rebuilt on the fly).
  void rebuild_die(std::uint32_t die);

  // The RBER a read of `t`'s block sees now.
  double rber_of(const FlashTxn& t) const;

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)

 private:
  struct Rebuild {
    FlashTxn* read = nullptr;   // the failed read, delivered when the rebuild ends
    std::uint32_t pending = 0;  // member reads still out
    std::uint32_t members = 0;
    bool lost = false;        // another member failed too
    bool background = false;  // a failed die's rebuild, not a read's
    std::uint32_t next_free = 0;
  };
  // Decides, or advances, a read's retries. True when the read is finished
  // (clean, retried, or uncorrectable: status kLost for now).
  bool decode(FlashTxn* t);
  void start_rebuild(FlashTxn* t);
  // Starts the rebuild of `t`'s die-page with stripes across dies
  // (ftl.rain.span: dies): its context, or kNone when the stripe cannot
  // rebuild it.
  std::uint32_t rebuild_across(FlashTxn* t);
  // Starts the next die-page of a failed die's rebuild.
  void next_die_rebuild();
  void die_rebuild_done(const Rebuild& r);
  struct DiePage {
    std::uint32_t die, block, page;
  };
  std::deque<DiePage> die_pages_;   // a failed die's die-pages still to rebuild
  std::uint32_t die_rebuilds_ = 0;  // of them, in flight
  // A rebuild context for failed read `t`.
  std::uint32_t new_rebuild(FlashTxn* t);
  // Reads member `page` of `t`'s block on `die` for rebuild `ctx`.
  void read_member(std::uint32_t ctx, const FlashTxn& t, std::uint32_t die, std::uint32_t page);
  void member_done(std::uint32_t ctx);
  void check_reclaim(const FlashTxn& t, const BlockInfo& b);
  // The error stream's seed in power cycle `cycle`.
  std::uint64_t seed(std::uint32_t cycle) const {
    return (model_ ? model_->seed : 1) ^ (std::uint64_t{cycle} << 32);
  }
  bool injecting() const { return injected_.rate > 0 || !injected_.pages.empty(); }
  // True when an injected fault makes `t` uncorrectable.
  bool injected_failure(const FlashTxn& t);

  FtlCore& core_;
  const ErrorModel* model_;
  const ReadRecoveryConfig& cfg_;
  RecoveryListener* listener_ = nullptr;
  Rng rng_;
  Injected injected_;
  bool failed_blocks_ = false;
  std::vector<Rebuild> rebuilds_;
  std::uint32_t free_ = 0xFFFFFFFFu;
};

}  // namespace ssdtwin
