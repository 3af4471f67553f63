// What the FTL's firmware keeps on flash beside the data (in its system
// area: SMART, the grown-bad-die table, the lost-page list, map
// checkpoints), so a power cut keeps it. FtlCore holds it as one group,
// and a cut copies the group whole into its image (ftl/recovery/
// power_loss.h) and recovery copies it back: a member added here survives
// cuts without a line elsewhere. The other durable state is per block
// (BlockManager: erase counts, modes, programmed pages, retirement) and per
// slot (the out-of-band owner in MappingTable, the sequence numbers of the
// Verifier).
#pragma once

#include <cstdint>
#include <vector>

namespace ssdtwin {

class StateArchive;

struct FtlDurable {
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)
  std::uint32_t power_cycles = 0;  // seeds the fault streams anew after each cut
  // Dies that stopped working (a workload fault): no host data or
  // relocation goes there any more; what they held is lost.
  std::vector<std::uint8_t> die_offline;
  // Logical pages whose data was lost (an uncorrectable read with no
  // rebuild): reads of them fail until they are written again. A bitset,
  // sized at the first loss.
  std::vector<std::uint64_t> poisoned;
  std::uint64_t poisoned_pages = 0;
  // Map checkpoints (ftl.power_loss.map_checkpoint_every): programs so far
  // (each block's last is stamped with it) and at the last checkpoint.
  std::uint32_t program_seq = 0;
  std::uint32_t checkpoint_seq = 0;
  bool checkpointed = false;
};

}  // namespace ssdtwin
