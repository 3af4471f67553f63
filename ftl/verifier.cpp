#include "ftl/verifier.h"

#include "sim/state_archive.h"

namespace ssdtwin {

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void Verifier::archive(StateArchive& ar) {
  ar.vec(expected_, true);
  ar.vec(slot_, true);
  ar.pod(last_);
}

}  // namespace ssdtwin
