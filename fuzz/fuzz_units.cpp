// The unit grammar (sim/config.h): sizes, times, bus rates, trace device
// numbers and format names, read directly and as a config value set with
// --set, through every typed getter the models use.
#include <cmath>
#include <string>

#include "fuzz/fuzz_support.h"
#include "host/trace/trace_reader.h"
#include "sim/config.h"

using namespace ssdtwin;

namespace {

// Each getter on its own: one that rejects the value must not stop the others.
template <typename Get>
void each(Get get) {
  try {
    get();
  } catch (const ConfigError&) {
  }
}

void direct(const std::string& s) {
  // A value that parses prints back to the same value (sizes in bytes, times in ns).
  if (const auto b = parse_bytes(s)) {
    if (parse_bytes(std::to_string(*b)) != b)
      fuzz::finding("parse_bytes: value does not round-trip");
    if (parse_bytes(std::to_string(*b) + "B") != b) fuzz::finding("parse_bytes: N != NB");
  }
  if (const auto t = parse_time(s)) {
    if (parse_time(std::to_string(*t) + "ns") != t)
      fuzz::finding("parse_time: value does not round-trip");
  }
  if (const auto r = parse_mts(s)) {
    if (!(std::isfinite(*r) && *r > 0)) fuzz::finding("parse_mts: not a finite positive rate");
  }
  parse_trace_device(s);
  parse_trace_format(s);
}

// The text as the value of one key, as `--set drive.v=TEXT` gives it.
void as_config_value(const std::string& s) {
  std::unique_ptr<ConfigDoc> doc;
  try {
    doc = ConfigDoc::parse("drive: {name: fuzz}\n", "fuzz.yaml", "drive", {"drive.v=" + s});
  } catch (const ConfigError&) {
    return;
  }
  const ConfigNode root = doc->root();
  each([&] { root.get_bytes("v"); });
  each([&] { root.get_bytes("v", 4096); });
  each([&] { root.get_time("v"); });
  each([&] { root.get_time("v", 1000); });
  each([&] { root.get_int("v", INT64_MIN, INT64_MAX); });
  each([&] { root.get_int("v", 0, -5, 5); });
  each([&] { root.get_double("v", -1e300, 1e300); });
  each([&] { root.get_double("v", 0.5, 0, 1); });
  each([&] { root.get_bool("v"); });
  each([&] { root.get_string("v"); });
  each([&] { root.get_enum("v", {"greedy", "cost_benefit"}); });
  each([&] {
    // Sizes given as shares resolve against a drive's capacity (here 1 TB).
    const Amount a = root.get_amount("v");
    (void)a.resolve(1'000'000'000'000);
  });
  each([&] { root.get_rate_mts("v"); });
  each([&] { root.get_time_list("v"); });
  each([&] { root.get_int_list("v", 1, 1, 65536); });
  each([&] { root.get_bytes_list("v", 4096); });
  each([&] { root.child("v").get_bytes("w", 0); });
  each([&] { root.children("v"); });
  each([&] { root.fail("v", "checked by the model"); });
  each([&] { doc->check_unused(); });
  doc->resolved_json();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string s = fuzz::text_of(data, size);
  direct(s);
  as_config_value(s);
  return 0;
}
