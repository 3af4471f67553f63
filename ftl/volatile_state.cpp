#include "ftl/volatile_state.h"

#include "sim/state_archive.h"

namespace ssdtwin {

void FtlVolatile::archive(StateArchive& ar) {
  ar.pods(map_journal_bytes, rng, mapped_pages, slc_valid_slots, host_idle, gc_idle);
  ar.vec(folding, true);
  ar.vec(host_programs, true);
  ar.pods(fault_rng, die_rebuild_running, bytes_since_checkpoint);
  ar.vec(tpage_dirty, true);
  ar.vec(dirty_list);
}

}  // namespace ssdtwin
