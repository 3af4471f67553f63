#include "ftl/ftl_kinds.h"

#include "ftl/ftl.h"
#include "ftl/zoned_ftl.h"

namespace ssdtwin {

const std::vector<FtlKindInfo>& ftl_kinds() {
  static const std::vector<FtlKindInfo> kKinds = {
      {"page_mapped", "4 KiB page mapping, write buffer, SLC cache, GC by relocation engine",
       &make_page_mapped_ftl},
      {"zoned",
       "NVMe zoned namespace: zones on fixed die-blocks, write pointers, open/active limits, no GC",
       &make_zoned_ftl},
  };
  return kKinds;
}

std::vector<std::string> ftl_kind_names() { return policy_names(ftl_kinds()); }

std::unique_ptr<FlashTranslation> make_ftl(const std::string& kind, const FtlParts& parts) {
  return make_policy(ftl_kinds(), kind, "FTL kind", parts);
}

Ftl* page_mapped(FlashTranslation& t) { return dynamic_cast<Ftl*>(&t); }

}  // namespace ssdtwin
