// Page identities for a state built by counted writes (fast: steady,
// FastWriter::write_counted). Counted writes keep each block's valid count,
// wear and age exactly as the exact path would evolve them under uniform
// random 4 KiB overwrites of a fully mapped drive, but not which logical
// page is where. Under such writes every mapped page is alike, so the exact
// path's placement is, in distribution, every logical page in a valid slot
// drawn at random: lay_out_owners draws each block's valid slots among its
// data slots and deals the logical pages to them in a random order.
#pragma once

#include <string>

#include "ftl/ftl_core.h"

namespace ssdtwin {

// Why counted writes cannot start on this state (empty: they can): they
// need every logical page mapped, no data in SLC-mode blocks or
// translation pages on flash (the draw would take them for host pages),
// and no write verification (it follows each page's contents).
std::string steady_blocker(const FtlCore& core);

// Rebuilds the forward and reverse maps after counted writes (FastWriter::
// finish first): every block keeps its valid count.
void lay_out_owners(FtlCore& core, Rng& rng);

}  // namespace ssdtwin
