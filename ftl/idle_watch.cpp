#include "ftl/idle_watch.h"

#include "sim/state_archive.h"

namespace ssdtwin {

Tick IdleWatch::next_deadline() const {
  Tick next = 0;
  const Tick fold = core_.cfg.slc.fold_idle;
  if (slc_folds_ && fold > 0 && !core_.host_idle) next = last_host_io_ + fold;
  const Tick gc = core_.cfg.gc_background_idle;
  if (gc > 0 && !core_.gc_idle && (next == 0 || last_host_io_ + gc < next))
    next = last_host_io_ + gc;
  return next;
}

void IdleWatch::arm() {
  if (timer_.armed()) return;
  const Tick next = next_deadline();
  if (next == 0) return;
  timer_.arm(next);
}

bool IdleWatch::cross_thresholds() {
  const Tick idle = core_.engine.now() - last_host_io_;
  bool changed = false;
  const Tick fold = core_.cfg.slc.fold_idle;
  if (slc_folds_ && fold > 0 && !core_.host_idle && idle >= fold) {
    core_.host_idle = true;  // fold the SLC cache in the background
    changed = true;
  }
  const Tick gc = core_.cfg.gc_background_idle;
  if (gc > 0 && !core_.gc_idle && idle >= gc) {
    core_.gc_idle = true;  // collect up to the background target
    changed = true;
  }
  return changed;
}

void IdleWatch::archive(StateArchive& ar) {
  ar.pod(last_host_io_);
  timer_.archive(ar);
}

}  // namespace ssdtwin
