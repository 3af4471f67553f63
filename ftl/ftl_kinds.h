// The FTL kinds a drive config can name (`ftl.kind`), each a
// FlashTranslation (ftl/translation.h): a new kind is one file with its
// factory and one line in the table in ftl/ftl_kinds.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ftl/translation.h"
#include "sim/policy_table.h"

namespace ssdtwin {

class Ftl;

using FtlKindInfo = PolicyInfo<FlashTranslation, const FtlParts&>;
const std::vector<FtlKindInfo>& ftl_kinds();
std::vector<std::string> ftl_kind_names();
std::unique_ptr<FlashTranslation> make_ftl(const std::string& kind, const FtlParts& parts);

// The page-mapped FTL behind `t`, whose tables, statistics, fast writes
// and snapshots the reports and procedures read; null for another kind.
Ftl* page_mapped(FlashTranslation& t);

}  // namespace ssdtwin
