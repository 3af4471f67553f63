// A drive config from YAML text (plus "#--set" overrides, see
// fuzz_support.h), loaded as `ssdtwin run` loads it: the document parsed
// and validated, the whole drive built from it (NAND array, FTL,
// controller, host interface), every key checked as read, and the resolved
// config written.
//
// Only drives of up to kMaxRawBytes of flash are built: the mapping tables
// of a 250 GB drive take hundreds of MB and a second to allocate, which is
// the model working as designed, not something to fuzz at thousands of
// inputs a second. Larger geometries stop after the NAND section is read.
#include <memory>
#include <string>

#include "app/drive.h"
#include "fuzz/fuzz_support.h"
#include "nand/geometry.h"
#include "sim/config.h"

using namespace ssdtwin;

namespace {

constexpr std::uint64_t kMaxRawBytes = std::uint64_t{2} << 30;  // the 1 GB test drive has 1.125 GiB

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::text_of(data, size);
  const auto sets = fuzz::overrides_in(text);
  try {
    {
      const auto doc = ConfigDoc::parse(text, "fuzz-drive.yaml", "drive", sets);
      const Geometry geo = Geometry::from_config(doc->root().child("nand"));
      if (geo.raw_bytes() > kMaxRawBytes) return -1;  // keep out of the corpus
    }
    const auto doc = ConfigDoc::parse(text, "fuzz-drive.yaml", "drive", sets);
    const auto drive = std::make_unique<Drive>(doc->root(), /*verify=*/false);
    doc->check_unused();
    doc->resolved_json();
  } catch (const ConfigError& e) {
    fuzz::expected(e);
  }
  return 0;
}
