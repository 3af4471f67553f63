#include "ftl/mapping/mapping_table.h"

#include "sim/state_archive.h"

namespace ssdtwin {

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void MappingTable::archive(StateArchive& ar) {
  ar.array(l2p_);
  ar.array(p2l_);
  ar.array(gtd_);
}

}  // namespace ssdtwin
