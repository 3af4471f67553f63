#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/config.h"
#include "sim/params.h"

using ssdtwin::Amount;
using ssdtwin::ConfigDoc;
using ssdtwin::ConfigError;
using ssdtwin::ConfigNode;
using ssdtwin::parse_bytes;
using ssdtwin::parse_mts;
using ssdtwin::parse_time;
using ssdtwin::Tick;
using ssdtwin::operator""_ns;
using ssdtwin::operator""_us;
using ssdtwin::operator""_ms;
using ssdtwin::operator""_s;

namespace {

std::unique_ptr<ConfigDoc> drive_doc(const std::string& text,
                                     const std::vector<std::string>& overrides = {}) {
  return ConfigDoc::parse(text, "x.yaml", "drive", overrides);
}

std::unique_ptr<ConfigDoc> workload_doc(const std::string& text,
                                        const std::vector<std::string>& overrides = {}) {
  return ConfigDoc::parse(text, "w.yaml", "workload", overrides);
}

// The message of the ConfigError `f` throws, so tests can compare whole lines.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

nlohmann::ordered_json resolved(const ConfigDoc& doc) {
  return nlohmann::ordered_json::parse(doc.resolved_json());
}

// Line numbers below are 1-based; columns are counted on the line as written.
const char kNand[] =
    "drive:\n"                // 1
    "  nand:\n"               // 2
    "    page_size: abc\n"    // 3: value at column 16
    "    planes: 9\n"         // 4: value at column 13
    "    ratio: 1.5x\n"       // 5: value at column 12
    "    cache: maybe\n"      // 6: value at column 12
    "    name: {a: 1}\n"      // 7: key at column 5
    "    mode: fast\n"        // 8: value at column 11
    "    tr: 50\n"            // 9: value at column 9
    "    tprog: [50us, x]\n"  // 10: 'x' at column 19
    "    rate: fast\n"        // 11: value at column 11
    "    op: x%\n";           // 12: value at column 9

}  // namespace

// ---- unit parsers ----

TEST_CASE("parse_bytes accepts plain, decimal-unit, binary-unit and fio-style sizes") {
  CHECK(parse_bytes("0") == 0u);
  CHECK(parse_bytes("4096") == 4096u);
  CHECK(parse_bytes("4096B") == 4096u);
  CHECK(parse_bytes("16KiB") == 16384u);
  CHECK(parse_bytes("16 KiB") == 16384u);
  CHECK(parse_bytes("2KB") == 2000u);
  CHECK(parse_bytes("2kB") == 2000u);
  CHECK(parse_bytes("250GB") == 250'000'000'000u);
  CHECK(parse_bytes("1TB") == 1'000'000'000'000u);
  CHECK(parse_bytes("1.5MiB") == 1'572'864u);
  CHECK(parse_bytes("1.5KiB") == 1536u);
  CHECK(parse_bytes("2GiB") == 2ull << 30);
  CHECK(parse_bytes("1TiB") == 1ull << 40);
  CHECK(parse_bytes("4K") == 4096u);
  CHECK(parse_bytes("4M") == 4u << 20);
  CHECK(parse_bytes("1G") == 1u << 30);
  CHECK(parse_bytes("1T") == 1ull << 40);
  CHECK(parse_bytes("1.0") == 1u);
  CHECK(parse_bytes("0.5KB") == 500u);
  CHECK(parse_bytes("18446744073709551615") == 18446744073709551615ull);
}

TEST_CASE("parse_bytes rejects negative, fractional-byte, junk and overflowing sizes") {
  for (const char* bad : {"",
                          "abc",
                          "-1",
                          "-1KiB",
                          "+1",
                          "0.3B",
                          "1.5",
                          "16KiBx",
                          "16 KiB ",
                          "16  KiB",
                          "16 ",
                          " 16",
                          "1.KiB",
                          ".5KiB",
                          "16kib",
                          "16Kb",
                          "1e3",
                          "KiB",
                          "18446744073709551616",
                          "16777216TiB",
                          "0x10"}) {
    INFO("text: '" << bad << "'");
    CHECK_FALSE(parse_bytes(bad).has_value());
  }
}

TEST_CASE("parse_time accepts ns, us, ms and s, decimals, and a bare zero") {
  CHECK(parse_time("0") == 0u);
  CHECK(parse_time("0ns") == 0u);
  CHECK(parse_time("700ns") == 700u);
  CHECK(parse_time("50us") == 50'000u);
  CHECK(parse_time("50 us") == 50'000u);
  CHECK(parse_time("2ms") == 2'000'000u);
  CHECK(parse_time("1.5ms") == 1'500'000u);
  CHECK(parse_time("1.5s") == 1'500'000'000u);
  CHECK(parse_time("0.001us") == 1u);
}

TEST_CASE("parse_time rounds to the nearest nanosecond") {
  CHECK(parse_time("0.4ns") == 0u);
  CHECK(parse_time("0.5ns") == 1u);
  CHECK(parse_time("1.0004us") == 1000u);
  CHECK(parse_time("1.0005us") == 1001u);
  CHECK(parse_time("0.99999999999s") == 1'000'000'000u);
  CHECK(parse_time("1.00000000000000000000000001s") == 1'000'000'000u);
}

TEST_CASE("parse_time rejects bare numbers other than 0, negatives, junk and overflow") {
  for (const char* bad :
       {"", "50", "1", "1.5", "0.0", "-1us", "abc", "us", "5 us ", "5  us", "5min", "1e3us", "5US",
        "50 ", "99999999999999999999ns", "18446744074s"}) {
    INFO("text: '" << bad << "'");
    CHECK_FALSE(parse_time(bad).has_value());
  }
}

TEST_CASE("parse_mts accepts MT/s with or without a space, and bare positive numbers") {
  CHECK(parse_mts("800MT/s") == 800.0);
  CHECK(parse_mts("800 MT/s") == 800.0);
  CHECK(parse_mts("800") == 800.0);
  CHECK(parse_mts("1066.5") == 1066.5);
}

TEST_CASE("parse_mts rejects zero, negatives and other units") {
  for (const char* bad :
       {"", "0", "0MT/s", "-5", "800MTs", "800 mt/s", "MT/s", "800MT/s ", "800 ", "abc"}) {
    INFO("text: '" << bad << "'");
    CHECK_FALSE(parse_mts(bad).has_value());
  }
}

// ---- getters ----

TEST_CASE("getters return well-formed values of every type") {
  auto doc = drive_doc(
      "drive:\n"
      "  page_size: 16KiB\n"
      "  tr: 50us\n"
      "  planes: 4\n"
      "  neg: -3\n"
      "  ratio: 0.25\n"
      "  cache: true\n"
      "  wc: no\n"
      "  name: tlc-512\n"
      "  mode: slc\n"
      "  op: 7%\n"
      "  cap: 64GiB\n"
      "  rate: 800MT/s\n"
      "  rate2: 1200\n"
      "  tprog: [50us, 1ms, 2ms]\n"
      "  tbers: 3ms\n");
  const ConfigNode d = doc->root();
  CHECK(d.path() == "drive");
  CHECK(d.get_bytes("page_size") == 16384u);
  CHECK(d.get_time("tr") == 50_us);
  CHECK(d.get_int("planes", 1, 4) == 4);
  CHECK(d.get_int("neg", -5, 5) == -3);
  CHECK(d.get_double("ratio", 0.0, 1.0) == 0.25);
  CHECK(d.get_bool("cache"));
  CHECK_FALSE(d.get_bool("wc"));
  CHECK(d.get_string("name") == "tlc-512");
  CHECK(d.get_enum("mode", {"slc", "tlc"}) == "slc");
  const Amount op = d.get_amount("op");
  CHECK(op.is_percent);
  CHECK(op.percent == 7.0);
  CHECK(op.resolve(1000) == 70u);
  const Amount cap = d.get_amount("cap");
  CHECK_FALSE(cap.is_percent);
  CHECK(cap.bytes == 64ull << 30);
  CHECK(d.get_rate_mts("rate") == 800.0);
  CHECK(d.get_rate_mts("rate2") == 1200.0);
  CHECK(d.get_time_list("tprog") == std::vector<Tick>{50_us, 1_ms, 2_ms});
  CHECK(d.get_time_list("tbers") == std::vector<Tick>{3_ms});
  CHECK_NOTHROW(doc->check_unused());
}

TEST_CASE("a malformed size is reported with file, line, column and full path") {
  auto doc = drive_doc(kNand);
  const ConfigNode nand = doc->root().child("nand");
  CHECK(nand.path() == "drive.nand");
  CHECK(error_of([&] { nand.get_bytes("page_size"); }) ==
        "x.yaml:3:16: drive.nand.page_size: expected a size such as 16KiB, got 'abc'");
  CHECK(error_of([&] { nand.get_bytes("page_size", 4096); }) ==
        "x.yaml:3:16: drive.nand.page_size: expected a size such as 16KiB, got 'abc'");
}

TEST_CASE("an integer getter reports values out of range and non-integers") {
  auto doc = drive_doc(kNand);
  const ConfigNode nand = doc->root().child("nand");
  CHECK(error_of([&] { nand.get_int("planes", 1, 4); }) ==
        "x.yaml:4:13: drive.nand.planes: expected an integer in [1, 4], got '9'");
  CHECK(error_of([&] { nand.get_int("planes", 2, 1, 4); }) ==
        "x.yaml:4:13: drive.nand.planes: expected an integer in [1, 4], got '9'");
  CHECK(nand.get_int("planes", 0, 9) == 9);

  auto frac = drive_doc("drive:\n  n: 1.5\n  m: abc\n  big: 99999999999999999999\n");
  const ConfigNode d = frac->root();
  CHECK(error_of([&] { d.get_int("n", 0, 10); }) ==
        "x.yaml:2:6: drive.n: expected an integer in [0, 10], got '1.5'");
  CHECK(error_of([&] { d.get_int("m", 0, 10); }) ==
        "x.yaml:3:6: drive.m: expected an integer in [0, 10], got 'abc'");
  CHECK_THROWS_AS(d.get_int("big", 0, INT64_MAX), ConfigError);
}

TEST_CASE("a number getter reports junk and values out of range") {
  auto doc = drive_doc(kNand);
  const ConfigNode nand = doc->root().child("nand");
  CHECK(error_of([&] { nand.get_double("ratio", 0, 1); }) ==
        "x.yaml:5:12: drive.nand.ratio: expected a number in [0, 1], got '1.5x'");
  auto range = drive_doc("drive:\n  r: 2.5\n  e: 1e3\n  nan: .nan\n");
  const ConfigNode d = range->root();
  CHECK(error_of([&] { d.get_double("r", 0.5, 1.5); }) ==
        "x.yaml:2:6: drive.r: expected a number in [0.5, 1.5], got '2.5'");
  CHECK(error_of([&] { d.get_double("r", 0.5, 0.5, 1.5); }) ==
        "x.yaml:2:6: drive.r: expected a number in [0.5, 1.5], got '2.5'");
  CHECK(d.get_double("e", 0, 1e6) == 1000.0);
  CHECK_THROWS_AS(d.get_double("nan", 0, 1), ConfigError);
}

TEST_CASE("a boolean getter rejects words other than true/false and their yaml synonyms") {
  auto doc = drive_doc(kNand);
  const ConfigNode nand = doc->root().child("nand");
  CHECK(error_of([&] { nand.get_bool("cache"); }) ==
        "x.yaml:6:12: drive.nand.cache: expected true or false, got 'maybe'");
  CHECK(error_of([&] { nand.get_bool("cache", true); }) ==
        "x.yaml:6:12: drive.nand.cache: expected true or false, got 'maybe'");
}

TEST_CASE("a map where a scalar is expected is reported at its key") {
  auto doc = drive_doc(kNand);
  const ConfigNode nand = doc->root().child("nand");
  CHECK(error_of([&] { nand.get_string("name"); }) ==
        "x.yaml:7:5: drive.nand.name: expected a string, got a map");
  CHECK(error_of([&] { nand.get_bytes("name", 1); }) ==
        "x.yaml:7:5: drive.nand.name: expected a size such as 16KiB, got a map");
  auto list = drive_doc("drive:\n  name:\n    - a\n");
  CHECK(error_of([&] { list->root().get_string("name", "x"); }) ==
        "x.yaml:2:3: drive.name: expected a string, got a list");
}

TEST_CASE("an enum getter lists the accepted choices") {
  auto doc = drive_doc(kNand);
  const ConfigNode nand = doc->root().child("nand");
  CHECK(error_of([&] {
          nand.get_enum("mode", {"slc", "mlc", "tlc"});
        }) == "x.yaml:8:11: drive.nand.mode: expected one of slc, mlc, tlc, got 'fast'");
  CHECK(error_of([&] {
          nand.get_enum("mode", {"slc", "tlc"}, "tlc");
        }) == "x.yaml:8:11: drive.nand.mode: expected one of slc, tlc, got 'fast'");
}

TEST_CASE("a time without a unit is rejected with a hint about units") {
  auto doc = drive_doc(kNand);
  const ConfigNode nand = doc->root().child("nand");
  const std::string want =
      "x.yaml:9:9: drive.nand.tr: expected a time such as 50us (units ns, us, ms, s), got '50'";
  CHECK(error_of([&] { nand.get_time("tr"); }) == want);
  CHECK(error_of([&] { nand.get_time("tr", 1_us); }) == want);
  CHECK(error_of([&] { nand.get_time_list("tr"); }) == want);
}

TEST_CASE("a bad element of a time list is reported at the element with its index") {
  auto doc = drive_doc(kNand);
  const ConfigNode nand = doc->root().child("nand");
  CHECK(error_of([&] { nand.get_time_list("tprog"); }) ==
        "x.yaml:10:19: drive.nand.tprog.1: expected a time such as 50us (units ns, us, ms, s), "
        "got 'x'");
  auto empty = drive_doc("drive:\n  t: []\n  m: {a: 1}\n");
  CHECK(error_of([&] { empty->root().get_time_list("t"); }) ==
        "x.yaml:2:3: drive.t: expected a time such as 50us or a non-empty list of times, got an "
        "empty list");
  CHECK(error_of([&] { empty->root().get_time_list("m"); }) ==
        "x.yaml:3:3: drive.m: expected a time such as 50us or a non-empty list of times, got a "
        "map");
}

TEST_CASE("rate and amount getters report malformed values") {
  auto doc = drive_doc(kNand);
  const ConfigNode nand = doc->root().child("nand");
  CHECK(error_of([&] { nand.get_rate_mts("rate"); }) ==
        "x.yaml:11:11: drive.nand.rate: expected a transfer rate such as 800MT/s, got 'fast'");
  CHECK(error_of([&] { nand.get_amount("op"); }) ==
        "x.yaml:12:9: drive.nand.op: expected a size such as 16KiB or a percentage such as "
        "100%, got 'x%'");
}

TEST_CASE("a missing required key is reported at its parent map") {
  auto doc = drive_doc(
      "drive:\n"
      "  nand:\n"
      "    planes: 2\n");
  const ConfigNode nand = doc->root().child("nand");
  CHECK(error_of([&] { nand.get_bytes("page_size"); }) ==
        "x.yaml:3:5: drive.nand.page_size: required key is missing");
  CHECK(error_of([&] { nand.get_rate_mts("rate"); }) ==
        "x.yaml:3:5: drive.nand.rate: required key is missing");
  CHECK(error_of([&] { nand.children("dies"); }) ==
        "x.yaml:3:5: drive.nand.dies: required key is missing");
  // Inside a map that is not in the file at all, the nearest written ancestor is the location.
  CHECK(error_of([&] { nand.child("timing").get_time("tr"); }) ==
        "x.yaml:3:5: drive.nand.timing.tr: required key is missing");
}

TEST_CASE("a key given without a value is an error, whether required or defaulted") {
  auto doc = drive_doc("drive:\n  page_size:\n  tr: ~\n");
  CHECK(error_of([&] { doc->root().get_bytes("page_size"); }) ==
        "x.yaml:2:3: drive.page_size: required key has no value");
  // A null never silently means the default.
  CHECK(error_of([&] { doc->root().get_time("tr", 5_us); }) ==
        "x.yaml:3:3: drive.tr: expected a value, got nothing (empty or null); remove the key to "
        "take its default");
}

TEST_CASE("an empty --set value is an error naming the override") {
  auto doc = ConfigDoc::parse("drive:\n  tr: 5us\n", "x.yaml", "drive", {"drive.tr="});
  CHECK_THAT(error_of([&] { doc->root().get_time("tr", 1_us); }),
             Catch::Contains("--set drive.tr") && Catch::Contains("expected a value"));
}

TEST_CASE("a missing or empty child map gives defaults, a scalar child is an error") {
  auto doc = drive_doc("drive:\n  gc:\n  ftl: 5\n");
  const ConfigNode d = doc->root();
  CHECK_FALSE(d.has("gc"));
  CHECK_FALSE(d.has("cache"));
  CHECK(d.has("ftl"));
  CHECK(d.child("gc").get_int("threshold", 3, 0, 10) == 3);
  CHECK(d.child("cache").get_bool("enabled", true));
  CHECK_FALSE(d.child("cache").has("enabled"));
  CHECK(d.child("gc").path() == "drive.gc");
  CHECK(error_of([&] { d.child("ftl"); }) == "x.yaml:3:8: drive.ftl: expected a map, got '5'");
}

TEST_CASE("reading a missing key leaves the document unchanged") {
  auto doc = drive_doc("drive:\n  x: 1\n");
  const ConfigNode d = doc->root();
  CHECK(d.get_int("y", 4, 0, 9) == 4);
  CHECK_FALSE(d.has("y"));
  CHECK_THROWS_AS(d.get_int("y", 0, 9), ConfigError);
  d.get_int("x", 0, 9);
  CHECK_NOTHROW(doc->check_unused());
}

TEST_CASE("children returns each map of a list with an indexed path") {
  auto doc = workload_doc(
      "workload:\n"
      "  phases:\n"
      "    - bs: 4K\n"
      "    - bs: 128K\n"
      "  bad:\n"
      "    - bs: 4K\n"
      "    - 5\n"
      "  scalar: 5\n");
  const ConfigNode w = doc->root();
  const auto phases = w.children("phases");
  REQUIRE(phases.size() == 2);
  CHECK(phases[1].path() == "workload.phases.1");
  CHECK(phases[0].get_bytes("bs") == 4096u);
  CHECK(phases[1].get_bytes("bs") == 131072u);
  CHECK(error_of([&] { w.children("bad"); }) ==
        "w.yaml:7:7: workload.bad.1: expected a map, got '5'");
  CHECK(error_of([&] { w.children("scalar"); }) ==
        "w.yaml:8:11: workload.scalar: expected a list of maps, got '5'");
  CHECK(error_of([&] { phases[1].get_time("think"); }) ==
        "w.yaml:4:7: workload.phases.1.think: required key is missing");
}

TEST_CASE("fail reports a cross-field error at the key, or at the map when the key is absent") {
  auto doc = drive_doc("drive:\n  nand:\n    page_size: 3000\n");
  const ConfigNode nand = doc->root().child("nand");
  CHECK(error_of([&] { nand.fail("page_size", "must be a multiple of 512"); }) ==
        "x.yaml:3:16: drive.nand.page_size: must be a multiple of 512");
  CHECK(error_of([&] { nand.fail("planes", "needed when page_size is set"); }) ==
        "x.yaml:3:5: drive.nand.planes: needed when page_size is set");
}

// ---- resolved tree ----

TEST_CASE("resolved_json holds written values and every default that was taken") {
  auto doc = drive_doc(
      "drive:\n"
      "  nand:\n"
      "    page_size: 16KiB\n"
      "    planes: 4\n"
      "    ratio: 0.5\n"
      "    cache: true\n"
      "    label: \"42\"\n");
  const ConfigNode d = doc->root();
  const ConfigNode nand = d.child("nand");
  nand.get_bytes("page_size");
  nand.get_int("planes", 1, 8);
  nand.get_double("ratio", 0, 1);
  nand.get_bool("cache");
  nand.get_string("label");
  CHECK(nand.get_bytes("spare", 1024) == 1024u);
  CHECK(nand.get_time("tr", 50_us) == 50_us);
  CHECK(nand.get_time("tdma", 1500_ns) == 1500_ns);
  CHECK(nand.get_time("tzero", 0) == 0u);
  CHECK(nand.get_time("tbig", 2_s) == 2_s);
  CHECK(nand.get_int("dies", 2, 1, 8) == 2);
  CHECK(nand.get_double("wear", 0.25, 0, 1) == 0.25);
  CHECK(nand.get_bool("slc", false) == false);
  CHECK(nand.get_string("vendor", "generic") == "generic");
  CHECK(nand.get_enum("cell", {"slc", "tlc"}, "tlc") == "tlc");
  Amount full;
  full.is_percent = true;
  full.percent = 100;
  CHECK(nand.get_amount("fill", full).percent == 100.0);
  Amount abs;
  abs.bytes = 4096;
  CHECK(nand.get_amount("chunk", abs).bytes == 4096u);
  d.child("gc").child("policy").get_int("threshold", 5, 0, 10);
  doc->check_unused();

  const auto want = nlohmann::ordered_json::parse(R"({
    "drive": {
      "nand": {
        "page_size": "16KiB", "planes": 4, "ratio": 0.5, "cache": true, "label": "42",
        "spare": 1024, "tr": "50us", "tdma": "1500ns", "tzero": "0ns", "tbig": "2s",
        "dies": 2, "wear": 0.25, "slc": false, "vendor": "generic", "cell": "tlc",
        "fill": "100%", "chunk": 4096
      },
      "gc": {"policy": {"threshold": 5}}
    }
  })");
  CHECK(resolved(*doc) == want);
  // Key order follows the document, then defaults in the order they were taken.
  CHECK(doc->resolved_json() == want.dump(2));
}

TEST_CASE("resolved_json places defaults inside list elements") {
  auto doc = workload_doc("workload:\n  phases:\n    - bs: 4K\n    - bs: 8K\n      qd: 4\n");
  for (const ConfigNode& p : doc->root().children("phases")) {
    p.get_bytes("bs");
    p.get_int("qd", 1, 1, 256);
  }
  const auto got = resolved(*doc);
  CHECK(got["workload"]["phases"][0]["qd"] == 1);
  CHECK(got["workload"]["phases"][1]["qd"] == 4);
  CHECK(got["workload"]["phases"][1]["bs"] == "8K");
}

// ---- unknown keys ----

TEST_CASE("an unknown key is reported with file, line and column") {
  auto doc = drive_doc(
      "drive:\n"
      "  nand:\n"
      "    page_size: 4KiB\n"
      "    pag_size: 8KiB\n");
  const ConfigNode nand = doc->root().child("nand");
  nand.get_bytes("page_size");
  nand.get_int("planes", 2, 1, 4);
  CHECK(error_of([&] { doc->check_unused(); }) ==
        "x.yaml:4:5: drive.nand.pag_size: unknown key (known keys here: page_size, planes)");
}

TEST_CASE("an unknown key directly under the root is reported") {
  auto doc = drive_doc("drive:\n  capacity: 1TB\n  capcity: 2TB\n");
  doc->root().get_bytes("capacity");
  CHECK(error_of([&] { doc->check_unused(); }) ==
        "x.yaml:3:3: drive.capcity: unknown key (known keys here: capacity)");
}

TEST_CASE("a map nobody read is reported at its own key") {
  auto doc = drive_doc(
      "drive:\n"
      "  capacity: 1TB\n"
      "  nadn:\n"
      "    page_size: 4KiB\n");
  doc->root().get_bytes("capacity");
  doc->root().child("nand").get_bytes("page_size", 4096);
  CHECK(error_of([&] { doc->check_unused(); }) ==
        "x.yaml:3:3: drive.nadn: unknown key (known keys here: capacity, nand)");
}

TEST_CASE("keys inside a map that was read but never looked into are each unknown") {
  auto doc = drive_doc("drive:\n  gc:\n    x: 1\n");
  doc->root().child("gc");
  CHECK(error_of([&] { doc->check_unused(); }) == "x.yaml:3:5: drive.gc.x: unknown key");
}

TEST_CASE("an unknown key inside a list element is reported with the element index") {
  auto doc = workload_doc(
      "workload:\n"
      "  phases:\n"
      "    - bs: 4K\n"
      "    - bs: 8K\n"
      "      depht: 4\n");
  for (const ConfigNode& p : doc->root().children("phases")) {
    p.get_bytes("bs");
    p.get_int("depth", 1, 1, 256);
  }
  CHECK(error_of([&] { doc->check_unused(); }) ==
        "w.yaml:5:7: workload.phases.1.depht: unknown key (known keys here: bs, depth)");
}

TEST_CASE("has does not count as reading a key") {
  auto doc = drive_doc("drive:\n  x: 1\n");
  CHECK(doc->root().has("x"));
  CHECK(error_of([&] { doc->check_unused(); }) == "x.yaml:2:3: drive.x: unknown key");
}

TEST_CASE("check_unused reports keys in document order") {
  auto doc = drive_doc("drive:\n  b: 1\n  a: 2\n");
  CHECK(error_of([&] { doc->check_unused(); }) == "x.yaml:2:3: drive.b: unknown key");
}

// ---- overrides ----

TEST_CASE("an override replaces an existing value") {
  auto doc = drive_doc("drive:\n  nand:\n    page_size: 4KiB\n",
                       {"drive.nand.page_size=16KiB", "workload.qd=8"});
  CHECK(doc->root().child("nand").get_bytes("page_size") == 16384u);
  CHECK_NOTHROW(doc->check_unused());
  CHECK(resolved(*doc)["drive"]["nand"]["page_size"] == "16KiB");
}

TEST_CASE("a later override of the same key wins") {
  auto doc = drive_doc("drive:\n  x: 1\n", {"drive.x=2", "drive.x=3"});
  CHECK(doc->root().get_int("x", 0, 9) == 3);
}

TEST_CASE("a bad value from an override is reported at the --set, not the file") {
  auto doc = drive_doc("drive:\n  nand:\n    page_size: 4KiB\n", {"drive.nand.page_size=abc"});
  CHECK(error_of([&] { doc->root().child("nand").get_bytes("page_size"); }) ==
        "--set drive.nand.page_size: drive.nand.page_size: expected a size such as 16KiB, got "
        "'abc'");
}

TEST_CASE("an override naming a new key is inserted and reported by check_unused") {
  auto doc = drive_doc("drive:\n  nand:\n    page_size: 4KiB\n", {"drive.nand.pag_size=8KiB"});
  doc->root().child("nand").get_bytes("page_size");
  CHECK(error_of([&] { doc->check_unused(); }) ==
        "--set drive.nand.pag_size: drive.nand.pag_size: unknown key (known keys here: "
        "page_size)");
}

TEST_CASE("an override of a whole map takes over the location of values below it") {
  auto doc = drive_doc("drive:\n  nand:\n    x: 1\n", {"drive.nand.x=2", "drive.nand={x: abc}"});
  CHECK(error_of([&] { doc->root().child("nand").get_int("x", 0, 9); }) ==
        "--set drive.nand: drive.nand.x: expected an integer in [0, 9], got 'abc'");
}

TEST_CASE("an override creates the maps along its path") {
  auto doc = drive_doc("drive:\n  nand:\n", {"drive.gc.policy.threshold=7", "drive.nand.x=1"});
  const ConfigNode d = doc->root();
  CHECK(d.child("gc").child("policy").get_int("threshold", 0, 10) == 7);
  CHECK(d.child("nand").get_int("x", 0, 10) == 1);
  CHECK_NOTHROW(doc->check_unused());
  CHECK(error_of([&] { d.child("gc").get_bool("on"); }) ==
        "--set drive.gc.policy.threshold: drive.gc.on: required key is missing");
}

TEST_CASE("an override into an empty root works") {
  auto doc = drive_doc("drive:\n", {"drive.x=5"});
  CHECK(doc->root().get_int("x", 0, 10) == 5);
}

TEST_CASE("an override indexes into a list") {
  auto doc = workload_doc("workload:\n  phases:\n    - bs: 4K\n    - bs: 8K\n",
                          {"workload.phases.1.bs=64K"});
  const auto phases = doc->root().children("phases");
  REQUIRE(phases.size() == 2);
  CHECK(phases[0].get_bytes("bs") == 4096u);
  CHECK(phases[1].get_bytes("bs") == 65536u);
  CHECK_NOTHROW(doc->check_unused());
}

TEST_CASE("an override replacing a list element with a scalar is reported at the --set") {
  auto doc = workload_doc("workload:\n  phases:\n    - bs: 4K\n", {"workload.phases.0=5"});
  CHECK(error_of([&] { doc->root().children("phases"); }) ==
        "--set workload.phases.0: workload.phases.0: expected a map, got '5'");
}

TEST_CASE("an override past the end of a list is an error") {
  CHECK(error_of([] {
          workload_doc("workload:\n  phases:\n    - bs: 4K\n    - bs: 8K\n",
                       {"workload.phases.5.bs=64K"});
        }) == "--set workload.phases.5.bs: no list element 5 (workload.phases has 2 elements)");
  CHECK(error_of([] {
          workload_doc("workload:\n  phases:\n    - bs: 4K\n", {"workload.phases.x.bs=64K"});
        }) == "--set workload.phases.x.bs: no list element x (workload.phases has 1 elements)");
}

TEST_CASE("an override below a scalar is an error") {
  CHECK(error_of([] { drive_doc("drive:\n  x: 5\n", {"drive.x.y=1"}); }) ==
        "--set drive.x.y: drive.x is '5', so it has no key 'y'");
}

TEST_CASE("an override value is parsed as yaml, so lists work") {
  auto doc = drive_doc("drive:\n  tprog: 1us\n", {"drive.tprog=[1us, 2us]"});
  CHECK(doc->root().get_time_list("tprog") == std::vector<Tick>{1_us, 2_us});
  CHECK(resolved(*doc)["drive"]["tprog"] == nlohmann::ordered_json::array({"1us", "2us"}));
}

TEST_CASE("a bad element of a list override is reported at the --set") {
  auto doc = drive_doc("drive:\n", {"drive.tprog=[1us, x]"});
  CHECK(error_of([&] { doc->root().get_time_list("tprog"); }) ==
        "--set drive.tprog: drive.tprog.1: expected a time such as 50us (units ns, us, ms, s), "
        "got 'x'");
}

TEST_CASE("malformed overrides are errors") {
  CHECK(error_of([] { drive_doc("drive:\n", {"drive.x"}); }) ==
        "--set drive.x: expected KEY.PATH=VALUE, e.g. drive.nand.page_size=16KiB");
  CHECK(error_of([] { drive_doc("drive:\n", {"=5"}); }) ==
        "--set =5: expected KEY.PATH=VALUE, e.g. drive.nand.page_size=16KiB");
  CHECK(error_of([] { drive_doc("drive:\n", {"drive..x=5"}); }) ==
        "--set drive..x=5: expected KEY.PATH=VALUE, e.g. drive.nand.page_size=16KiB");
  CHECK(error_of([] { drive_doc("drive:\n", {"drive=5"}); }) ==
        "--set drive: expected a key below 'drive', e.g. drive.KEY=VALUE");
  CHECK(error_of([] {
          drive_doc("drive:\n", {"drive.x=[1"});
        }).rfind("--set drive.x: YAML syntax error in the value: ", 0) == 0);
  CHECK(error_of([] { drive_doc("drive:\n", {"drive.x={a: 1, a: 2}"}); }) ==
        "--set drive.x: drive.x.a: duplicate key");
}

TEST_CASE("overrides for the other document are ignored") {
  auto doc = drive_doc("drive:\n  x: 1\n", {"workload.x=2", "workloadx.y=3"});
  CHECK(doc->root().get_int("x", 0, 9) == 1);
  CHECK_NOTHROW(doc->check_unused());
}

// ---- document shape ----

TEST_CASE("a yaml syntax error is reported with its location") {
  const std::string msg = error_of([] { drive_doc("drive:\n  nand: [1, 2\n  x: 1\n"); });
  CHECK(msg.rfind("x.yaml:", 0) == 0);
  CHECK(msg.find(": YAML syntax error: ") != std::string::npos);
  CHECK(msg.find('\n') == std::string::npos);
  CHECK(error_of([] { drive_doc("drive:\n  a: 1\n   b: 2\n"); }) ==
        "x.yaml:3:5: YAML syntax error: illegal map value");
}

TEST_CASE("a wrong root key is reported, naming the expected one") {
  CHECK(error_of([] { drive_doc("workload:\n  x: 1\n"); }) ==
        "x.yaml:1:1: workload: unexpected top-level key, expected only 'drive'");
  CHECK(error_of([] { drive_doc("drive:\n  x: 1\nextra: 2\n"); }) ==
        "x.yaml:3:1: extra: unexpected top-level key, expected only 'drive'");
  CHECK(error_of([] { drive_doc("hello\n"); }) ==
        "x.yaml:1:1: expected a map with the single top-level key 'drive', got 'hello'");
  CHECK(error_of([] { drive_doc("- a\n"); }) ==
        "x.yaml:1:1: expected a map with the single top-level key 'drive', got a list");
  CHECK(error_of([] { drive_doc(""); }) ==
        "x.yaml: expected a map with the single top-level key 'drive', got an empty document");
  CHECK(error_of([] { drive_doc("drive: 5\n"); }) == "x.yaml:1:1: drive: expected a map, got '5'");
  CHECK(error_of([] { drive_doc("drive:\n  x: 1\n---\ndrive:\n  x: 2\n"); }) ==
        "x.yaml:4:1: expected a single YAML document");
}

TEST_CASE("a duplicate key is an error rather than a silent choice") {
  CHECK(error_of([] { drive_doc("drive:\n  a: 1\n  a: 2\n"); }) ==
        "x.yaml:3:3: drive.a: duplicate key (first given at line 2)");
  CHECK(error_of([] { drive_doc("drive:\n  a: 1\ndrive:\n  b: 2\n"); }) ==
        "x.yaml:3:1: drive: duplicate key");
}

TEST_CASE("a missing file is reported by name") {
  CHECK(error_of([] { ConfigDoc::load("/nonexistent/x.yaml", "drive", {}); }) ==
        "/nonexistent/x.yaml: cannot open file");
}

TEST_CASE("load reads a file and names it in messages") {
  const std::string path = "/tmp/ssdtwin_test_config_" + std::to_string(::getpid()) + ".yaml";
  {
    std::ofstream out(path);
    out << "drive:\n  page_size: 4KiB\n  bogus: 1\n";
  }
  auto doc = ConfigDoc::load(path, "drive", {"drive.page_size=8KiB"});
  std::remove(path.c_str());
  CHECK(doc->file() == path);
  CHECK(doc->root().get_bytes("page_size") == 8192u);
  CHECK(error_of([&] { doc->check_unused(); }) ==
        path + ":3:3: drive.bogus: unknown key (known keys here: page_size)");
}

// ---- Bytes that must not reach a message raw (issue 13)

TEST_CASE("a UTF-8 byte-order mark at the start of a config is skipped") {
  auto doc = drive_doc(
      "\xEF\xBB\xBF"
      "drive:\n  name: x\n");
  CHECK(doc->root().get_string("name") == "x");
  CHECK(error_of([&] {
          drive_doc(
              "\xEF\xBB\xBF"
              "drive:\n  n: [1\n");
        }).rfind("x.yaml:", 0) == 0);
}

TEST_CASE("a config that is not UTF-8 is refused at the byte, in the file and in an override") {
  // A Latin-1 byte in a value reached sweep.json's JSON writer, which threw
  // (found by fuzz/fuzz_sweep.cpp); YAML is Unicode, so the loader refuses it.
  CHECK(error_of([&] { drive_doc("drive:\n  name: caf\xE9!\n"); }) ==
        "x.yaml:2:12: not UTF-8 text (a YAML file must be): byte 0xE9");
  CHECK(error_of([&] { drive_doc("drive:\n  name: \xED\xA0\x80\n"); }).find("byte 0xED") !=
        std::string::npos);
  CHECK(error_of([&] { drive_doc("drive:\n  name: \xC0\xAF\n"); }).find("byte 0xC0") !=
        std::string::npos);
  CHECK(drive_doc("drive:\n  name: caf\xC3\xA9 \xF0\x9F\x92\xBE\n")->root().get_string("name") ==
        "caf\xC3\xA9 \xF0\x9F\x92\xBE");
  CHECK(error_of([&] {
          ssdtwin::ConfigDoc::parse("drive:\n  name: x\n", "x.yaml", "drive", {"drive.name=\xFF"});
        }) == "--set drive.name=...: not UTF-8 text: byte 0xFF");
}

TEST_CASE("control bytes in a quoted value are escaped in messages and a NUL does not cut them") {
  // YAML escapes in a double-quoted scalar give the raw bytes to the getter.
  auto doc = drive_doc("drive:\n  cell: \"t\\x01l\\0c\\ttail\"\n");
  const std::string msg = error_of([&] { doc->root().get_enum("cell", {"slc", "tlc"}); });
  CHECK(msg == "x.yaml:2:9: drive.cell: expected one of slc, tlc, got 't\\x01l\\x00c\\ttail'");
  CHECK(msg.find('\0') == std::string::npos);
  CHECK(ssdtwin::printable("a\x7f\x1b[31mb\xc3\xa9") == "a\\x7f\\x1b[31mb\xc3\xa9");
}

// ---- Found by the fuzzers (fuzz/, issue 13) ----

#include "test_support.h"

TEST_CASE("a stray ',' outside [ ] or { } is a located syntax error, not an endless load") {
  try {
    ssdtwin::ConfigDoc::parse(",\n", "x.yaml", "drive", {});
    FAIL("no error");
  } catch (const ssdtwin::ConfigError& e) {
    CHECK(std::string(e.what()).find("x.yaml:1:1") != std::string::npos);
  }
  CHECK_THROWS_AS(ssdtwin::ConfigDoc::parse("drive:\n  a: [1],\n", "x.yaml", "drive", {}),
                  ssdtwin::ConfigError);
}

TEST_CASE("a percentage whose bytes overflow is refused") {
  CHECK_THROWS_AS(
      ssdtwin::test::make_workload(
          "workload:\n  phases:\n    - {name: p, rw: write, offset: 2000000%}\n", 1ull << 30),
      ssdtwin::ConfigError);
}

TEST_CASE("sizes held in 32 bits are range-checked before narrowing") {
  // 4 GiB plus a valid size must not wrap to the valid size.
  for (const std::string set :
       {"drive.nand.page_size=4294983680", "drive.host.sata.max_fis_payload=4294975488",
        "drive.host.sata.fis_overhead=4294967344", "drive.ftl.map_cache.entry_size=4294967300",
        "drive.controller.ecc.codeword=4294968320"}) {
    INFO(set);
    CHECK_THROWS_AS(ssdtwin::test::make_drive("configs/drives/test_mlc_sata.yaml", {set}),
                    ssdtwin::ConfigError);
  }
}

// ---- Declared parameters (sim/params.h) ----

namespace {

const ssdtwin::ParamSection& demo_section() {
  using namespace ssdtwin;
  static const ParamSection kSection{
      "drive.demo",
      "A section for the tests.",
      {
          param::bytes("size", "4KiB", "a size"),
          param::integer("count", "3", 1, 8, "things", "a count"),
          param::time("wait", nullptr, "a required time"),
          param::choice("mode", "fast", "fast|slow", "a mode"),
          param::real("share", "(half the count)", 0, 1, "", "a computed share"),
          param::map("inner", "a sub-map"),
      }};
  return kSection;
}

}  // namespace

TEST_CASE("params: defaults and ranges come from the declaration", "[config][params]") {
  auto doc = drive_doc("drive:\n  wait: 5us\n");
  const ssdtwin::Params p(doc->root(), demo_section());
  CHECK(p.bytes("size") == 4096);
  CHECK(p.integer("count") == 3);
  CHECK(p.time("wait") == 5_us);
  CHECK(p.choice("mode") == "fast");
  CHECK(p.real("share", 0.25) == 0.25);
  doc->check_unused();
  // The defaults used are recorded in the resolved tree like any getter's.
  const auto resolved = nlohmann::json::parse(doc->resolved_json());
  CHECK(resolved["drive"]["count"] == 3);
}

TEST_CASE("params: a value outside the declared range is a located error", "[config][params]") {
  auto doc = drive_doc("drive:\n  count: 9\n  mode: medium\n");
  const ssdtwin::Params p(doc->root(), demo_section());
  CHECK(error_of([&] { p.integer("count"); }) ==
        "x.yaml:2:10: drive.count: expected an integer in [1, 8], got '9'");
  CHECK(error_of([&] { p.choice("mode"); }).find("fast, slow") != std::string::npos);
  CHECK(error_of([&] { p.time("wait"); }).find("drive.wait") != std::string::npos);
}

TEST_CASE("params: a range that depends on the drive narrows the declared one",
          "[config][params]") {
  auto doc = drive_doc("drive:\n  count: 6\n");
  const ssdtwin::Params p(doc->root(), demo_section());
  CHECK(p.integer_within("count", 1, 6) == 6);
  CHECK(error_of([&] { p.integer_within("count", 0, 4); }) ==
        "x.yaml:2:10: drive.count: expected an integer in [1, 4], got '6'");
  CHECK(p.real_within("share", 0.5, 0, 0.75) == 0.5);  // computed default, absent
}

TEST_CASE("params: reading an undeclared key, or with the wrong kind, is a programming error",
          "[config][params]") {
  auto doc = drive_doc("drive:\n  size: 1KiB\n");
  const ssdtwin::Params p(doc->root(), demo_section());
  CHECK_THROWS_AS(p.bytes("sise"), std::logic_error);
  CHECK_THROWS_AS(p.time("size"), std::logic_error);
  // A computed default is given by the reader, and only for keys declaring one.
  CHECK_THROWS_AS(p.real("share"), std::logic_error);
  CHECK_THROWS_AS(p.bytes("size", 1), std::logic_error);
}

TEST_CASE("params: sub-maps are read through their own section", "[config][params]") {
  using namespace ssdtwin;
  static const ParamSection kInner{"drive.demo.inner", "", {param::flag("on", "false", "a flag")}};
  auto doc = drive_doc("drive:\n  inner:\n    on: true\n");
  const Params p(doc->root(), demo_section());
  CHECK(p.child("inner", kInner).flag("on"));
  CHECK(Params(p.map("inner"), kInner).flag("on"));
  CHECK_THROWS_AS(p.map("size"), std::logic_error);
  doc->check_unused();
}

TEST_CASE("params: a list whose default the reader computes is read only when given",
          "[config][params]") {
  using namespace ssdtwin;
  static const ParamSection kLists{"drive.lists",
                                   "",
                                   {
                                       param::time_list("times", "(none)", "times"),
                                       param::int_list("counts", "(10, 20)", 1, 100, "", "counts"),
                                       param::bytes_list("sizes", "(none)", "sizes"),
                                   }};
  auto doc = drive_doc("drive:\n  counts: [5, 7]\n  sizes: 8KiB\n");
  const Params p(doc->root(), kLists);
  CHECK(p.time_list("times", {}).empty());
  CHECK(p.int_list("counts", {10, 20}) == std::vector<std::int64_t>{5, 7});
  CHECK(p.bytes_list("sizes", {}) == std::vector<std::uint64_t>{8192});
  CHECK_THROWS_AS(p.int_list("counts"), std::logic_error);
  doc->check_unused();
  // An absent list records no default in the resolved tree.
  const auto resolved = nlohmann::json::parse(doc->resolved_json());
  CHECK_FALSE(resolved["drive"].contains("times"));
  auto bad = drive_doc("drive:\n  counts: [5, 0]\n");
  CHECK(error_of([&] { Params(bad->root(), kLists).int_list("counts", {}); }) ==
        "x.yaml:2:15: drive.counts.1: expected an integer in [1, 100], got '0'");
}

TEST_CASE("params: a default that does not parse as its kind is reported", "[config][params]") {
  using namespace ssdtwin;
  const ParamSection bad{"drive.bad", "", {param::time("t", "5 parsecs", "a time")}};
  const ParamSection twice{
      "drive.twice", "", {param::flag("a", "true", "one"), param::flag("a", "false", "two")}};
  const ParamSection range{"drive.range", "", {param::integer("n", "0", 1, 4, "", "a count")}};
  CHECK(check_declarations({&demo_section()}).empty());
  CHECK(check_declarations({&bad}) == "drive.bad.t: default '5 parsecs' is not a valid time");
  CHECK(check_declarations({&twice}) == "drive.twice.a: declared twice");
  CHECK(check_declarations({&range}).find("drive.range.n") == 0);
  const std::string listing = params_listing({&demo_section()}, "drive.demo.c");
  CHECK(listing.rfind("drive.demo.count  (integer [1..8 things])  default 3\n", 0) == 0);
}
