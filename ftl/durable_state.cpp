#include "ftl/durable_state.h"

#include "sim/state_archive.h"

namespace ssdtwin {

void FtlDurable::archive(StateArchive& ar) {
  ar.pod(power_cycles);
  ar.vec(die_offline, true);
  ar.vec(poisoned);
  ar.pods(poisoned_pages, program_seq, checkpoint_seq, checkpointed);
}

}  // namespace ssdtwin
