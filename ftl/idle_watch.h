// Host idleness, for the background work that waits for it: the SLC cache
// folds once the host has been quiet for ftl.slc_cache.fold.idle_after, and
// GC collects up to its background target after
// ftl.gc.background.idle_after. The watch owns its timer and the last host
// IO's time; the flags it raises are FtlCore::host_idle and gc_idle, which
// the relocation engine reads.
#pragma once

#include <cstdint>

#include "ftl/ftl_core.h"
#include "sim/timer.h"

namespace ssdtwin {

class StateArchive;

class IdleWatch {
 public:
  // The watch fires `owner`->on_event(`kind`, ...): hand the argument to
  // fired(). `slc_folds`: the drive has an SLC cache to fold.
  IdleWatch(FtlCore& core, EventTarget* owner, std::uint32_t kind, bool slc_folds)
      : core_(core),
        timer_(core.engine, owner, kind),
        slc_folds_(slc_folds),
        watching_((slc_folds && core.cfg.slc.fold_idle > 0) || core.cfg.gc_background_idle > 0) {}

  // A host command arrived: both idle flags drop, and the watch aims at the
  // nearest threshold (left as it is when already set: a busy host keeps
  // one pending event, not one per command).
  void note_host_activity() {
    // A drive with neither idle folding nor background GC has nothing to
    // watch (its flags never rise): one test per host page.
    if (!watching_) return;
    last_host_io_ = core_.engine.now();
    core_.host_idle = false;
    core_.gc_idle = false;
    if (!timer_.armed()) arm();
  }
  // The watch's event: when the host has just crossed a threshold,
  // `on_idle` starts the background work; then the watch aims at the next.
  template <class F>
  void fired(std::uint64_t arg, F on_idle) {
    if (!timer_.fires(arg)) return;
    if (cross_thresholds()) on_idle();
    arm();
  }

  Timer& timer() { return timer_; }
  const Timer& timer() const { return timer_; }
  void archive(StateArchive& ar);  // the last host IO's time and the pending watch

 private:
  // The earliest idle threshold not yet reached since the last host IO (0: none).
  Tick next_deadline() const;
  void arm();
  // Raises the flags whose idle time has passed; true when one rose.
  bool cross_thresholds();

  FtlCore& core_;
  Timer timer_;
  bool slc_folds_;
  bool watching_;  // an idle threshold is configured
  Tick last_host_io_ = 0;
};

}  // namespace ssdtwin
