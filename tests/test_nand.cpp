// Unit tests for the NAND back end: geometry arithmetic, timing configuration
// and the die/channel timing model of NandArray.
//
// Expected completion times are computed here from the constants written in
// the test drive's YAML, following the model of nand_array.h/.cpp:
//   read:    t_cmd on the channel, tR on the die, data-out on the channel
//   program: t_cmd + data-in on the channel, then tPROG on the die
//   erase:   t_cmd on the channel, then tBERS on the die
// Transfers take the channel in request order. A read or erase command for a
// die whose channel is busy waits for at most one 4 KiB burst of the
// transfer in flight and stretches the channel's busy time by t_cmd.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "nand/flash_txn.h"
#include "nand/geometry.h"
#include "nand/nand_array.h"
#include "nand/timing.h"
#include "sim/config.h"
#include "sim/event_engine.h"
#include "sim/time.h"

using ssdtwin::bits_per_cell;
using ssdtwin::CellMode;
using ssdtwin::ConfigDoc;
using ssdtwin::ConfigError;
using ssdtwin::EventEngine;
using ssdtwin::FlashTxn;
using ssdtwin::Geometry;
using ssdtwin::NandArray;
using ssdtwin::NandStats;
using ssdtwin::NandTiming;
using ssdtwin::Tick;
using ssdtwin::transfer_time;
using ssdtwin::TxnOp;
using ssdtwin::TxnPool;
using ssdtwin::TxnSink;
using ssdtwin::TxnSource;
using ssdtwin::operator""_ns;
using ssdtwin::operator""_us;
using ssdtwin::operator""_ms;
using Catch::Matchers::Contains;

namespace {

// The test drive. Keep these constants and kDriveYaml in step.
constexpr std::uint32_t kChannels = 2;
constexpr std::uint32_t kDiesPerChannel = 2;
constexpr std::uint32_t kPlanes = 2;
constexpr std::uint32_t kBlocksPerPlane = 8;
constexpr std::uint32_t kPagesPerBlock = 12;
constexpr std::uint32_t kPageSize = 16384;
constexpr double kBusBytesPerS = 400e6;  // 400 MT/s x 1 byte
constexpr Tick kTcmd = 100_ns;
constexpr Tick kTlcTr[3] = {50_us, 60_us, 70_us};
constexpr Tick kTlcTprog[3] = {500_us, 900_us, 2000_us};
constexpr Tick kTlcTbers = 4_ms;
constexpr Tick kSlcTr = 30_us;
constexpr Tick kSlcTprog = 200_us;
constexpr Tick kSlcTbers = 2_ms;

const char kDriveYaml[] = R"(
drive:
  nand:
    channels: 2
    dies_per_channel: 2
    planes: 2
    blocks_per_plane: 8
    pages_per_block: 12
    page_size: 16KiB
    cell: tlc
    bus: 400MT/s
    t_cmd: 100ns
    timing:
      tlc: {tR: [50us, 60us, 70us], tPROG: [500us, 900us, 2000us], tBERS: 4ms}
      slc: {tR: 30us, tPROG: 200us, tBERS: 2ms}
)";

// A command for another die waits for at most one 4 KiB burst in flight.
const Tick kBurst = transfer_time(4096, kBusBytesPerS);

// A full multi-plane page: what one program moves over the channel.
constexpr std::uint32_t kDiePageBytes = kPlanes * kPageSize;

Tick bus(std::uint64_t bytes) { return transfer_time(bytes, kBusBytesPerS); }

Geometry geometry_of(ConfigDoc& doc) { return Geometry::from_config(doc.root().child("nand")); }

NandTiming timing_of(ConfigDoc& doc, const Geometry& geo) {
  return NandTiming::from_config(doc.root().child("nand"), geo);
}

// A NandArray on its own engine, with a sink that records when each
// transaction (identified by its owner field) completed.
class Bench : public TxnSink {
 public:
  explicit Bench(const std::string& yaml = kDriveYaml,
                 const std::vector<std::string>& overrides = {})
      : doc_(ConfigDoc::parse(yaml, "nand.yaml", "drive", overrides)),
        geo_(geometry_of(*doc_)),
        timing_(timing_of(*doc_, geo_)),
        nand_(engine_, geo_, timing_) {
    nand_.set_sink(this);
  }

  void on_txn_complete(FlashTxn* txn) override {
    done_at_[txn->owner] = engine_.now();
    order_.push_back(txn->owner);
    pool_.put(txn);
  }

  std::uint64_t read(std::uint32_t die, std::uint32_t page, std::uint32_t bytes,
                     TxnSource source = TxnSource::kHostRead, CellMode mode = CellMode::kTlc,
                     std::uint8_t plane_ops = 1) {
    return submit(TxnOp::kRead, source, mode, die, page, 1, bytes, plane_ops);
  }
  std::uint64_t program(std::uint32_t die, std::uint32_t page, CellMode mode = CellMode::kTlc,
                        std::uint32_t pages = 1, std::uint8_t plane_ops = 1) {
    return submit(TxnOp::kProgram, TxnSource::kHostWrite, mode, die, page, pages,
                  pages * kDiePageBytes, plane_ops);
  }
  std::uint64_t erase(std::uint32_t die, CellMode mode = CellMode::kTlc) {
    return submit(TxnOp::kErase, TxnSource::kGc, mode, die, 0, 0, 0);
  }
  // A translation-page read: for a host read's lookup, or for a map update.
  std::uint64_t map_read(std::uint32_t die, std::uint32_t page, bool for_host_read) {
    return submit(TxnOp::kRead, TxnSource::kMapping, CellMode::kTlc, die, page, 1, 4096, 1,
                  for_host_read);
  }

  void run() {
    while (engine_.step()) {
    }
  }

  Tick done_at(std::uint64_t id) const {
    const auto it = done_at_.find(id);
    REQUIRE(it != done_at_.end());
    return it->second;
  }
  const std::vector<std::uint64_t>& order() const { return order_; }
  const std::map<std::uint64_t, Tick>& completions() const { return done_at_; }

  EventEngine& engine() { return engine_; }
  NandArray& nand() { return nand_; }
  const Geometry& geo() const { return geo_; }
  const NandTiming& timing() const { return timing_; }
  std::size_t live_txns() const { return pool_.live(); }

 private:
  std::uint64_t submit(TxnOp op, TxnSource source, CellMode mode, std::uint32_t die,
                       std::uint32_t page, std::uint32_t pages, std::uint32_t bytes,
                       std::uint8_t plane_ops = 1, bool for_host_read = false) {
    FlashTxn* t = pool_.get();
    t->plane_ops = plane_ops;
    t->for_host_read = for_host_read;
    t->op = op;
    t->source = source;
    t->mode = mode;
    t->die = die;
    t->page = page;
    t->pages = pages;
    t->bytes = bytes;
    t->owner = next_id_++;
    nand_.submit(t);
    return t->owner;
  }

  std::unique_ptr<ConfigDoc> doc_;
  Geometry geo_;
  NandTiming timing_;
  EventEngine engine_;
  NandArray nand_;
  TxnPool pool_;
  std::uint64_t next_id_ = 0;
  std::map<std::uint64_t, Tick> done_at_;
  std::vector<std::uint64_t> order_;
};

// Builds geometry and timing from the test drive with `overrides` applied and
// returns the ConfigError message (or a marker when nothing was thrown).
std::string config_error(const std::string& yaml, const std::vector<std::string>& overrides) {
  try {
    auto doc = ConfigDoc::parse(yaml, "nand.yaml", "drive", overrides);
    const Geometry geo = geometry_of(*doc);
    timing_of(*doc, geo);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

std::string config_error(const std::vector<std::string>& overrides) {
  return config_error(kDriveYaml, overrides);
}

}  // namespace

// ---- Geometry ----

TEST_CASE("Geometry from config reads every dimension and derives the capacity") {
  auto doc = ConfigDoc::parse(kDriveYaml, "nand.yaml", "drive", {});
  const Geometry g = geometry_of(*doc);
  CHECK(g.channels == kChannels);
  CHECK(g.dies_per_channel == kDiesPerChannel);
  CHECK(g.planes == kPlanes);
  CHECK(g.blocks_per_plane == kBlocksPerPlane);
  CHECK(g.pages_per_block == kPagesPerBlock);
  CHECK(g.page_size == kPageSize);
  CHECK(g.native_mode == CellMode::kTlc);

  const std::uint64_t dies = kChannels * kDiesPerChannel;
  const std::uint64_t sectors_per_page = kPageSize / 4096;
  CHECK(g.dies() == dies);
  CHECK(g.sectors_per_page() == sectors_per_page);
  CHECK(g.slots_per_die_page() == kPlanes * sectors_per_page);
  CHECK(g.die_blocks() == dies * kBlocksPerPlane);
  CHECK(g.slots_per_die_block() == kPagesPerBlock * kPlanes * sectors_per_page);
  CHECK(g.total_slots() == dies * kBlocksPerPlane * kPagesPerBlock * kPlanes * sectors_per_page);
  // Raw capacity is every page of every plane of every die.
  CHECK(g.raw_bytes() ==
        dies * kPlanes * kBlocksPerPlane * std::uint64_t{kPagesPerBlock} * kPageSize);
}

TEST_CASE("Geometry gives lower-density modes a proportional share of the native pages") {
  Geometry tlc;
  tlc.pages_per_block = 192;
  tlc.native_mode = CellMode::kTlc;
  CHECK(tlc.pages_in_mode(CellMode::kSlc) == 192u / 3);
  CHECK(tlc.pages_in_mode(CellMode::kMlc) == 192u * 2 / 3);
  CHECK(tlc.pages_in_mode(CellMode::kTlc) == 192u);

  Geometry qlc;
  qlc.pages_per_block = 64;
  qlc.native_mode = CellMode::kQlc;
  CHECK(qlc.pages_in_mode(CellMode::kSlc) == 64u / 4);
  CHECK(qlc.pages_in_mode(CellMode::kQlc) == 64u);
}

TEST_CASE("Geometry numbers dies channel-first") {
  Geometry g;
  g.channels = 4;
  g.dies_per_channel = 3;
  REQUIRE(g.dies() == 12u);
  for (std::uint32_t k = 0; k < g.dies_per_channel; ++k) {
    for (std::uint32_t c = 0; c < g.channels; ++c) {
      const std::uint32_t die = c + g.channels * k;
      INFO("channel " << c << ", die " << k << " on the channel -> die " << die);
      CHECK(g.channel_of(die) == c);
    }
  }
}

TEST_CASE("Geometry rejects pages_per_block that is not whole wordlines") {
  const std::string msg = config_error({"drive.nand.pages_per_block=64"});
  CHECK_THAT(msg, Contains("drive.nand.pages_per_block:"));
  CHECK_THAT(msg, Contains("multiple of the bits per cell"));
  // 64 is fine on an MLC or QLC part.
  CHECK(config_error({"drive.nand.pages_per_block=64", "drive.nand.cell=mlc",
                      "drive.nand.timing.mlc={tR: 40us, tPROG: 600us, tBERS: 3ms}"}) ==
        "(no ConfigError)");
}

TEST_CASE("Geometry rejects a page size that is not whole 4KiB sectors") {
  CHECK_THAT(config_error({"drive.nand.page_size=6KiB"}), Contains("drive.nand.page_size:"));
  CHECK_THAT(config_error({"drive.nand.page_size=2KiB"}), Contains("drive.nand.page_size:"));
}

// ---- NandTiming ----

TEST_CASE("NandTiming from config reads the bus rate, t_cmd and per-mode timings") {
  auto doc = ConfigDoc::parse(kDriveYaml, "nand.yaml", "drive", {});
  const Geometry geo = geometry_of(*doc);
  const NandTiming t = timing_of(*doc, geo);
  CHECK(t.bus_bytes_per_s == kBusBytesPerS);
  CHECK(t.t_cmd == kTcmd);
  const auto& tlc = t.of(CellMode::kTlc);
  REQUIRE(tlc.present);
  CHECK(tlc.tR == std::vector<Tick>(std::begin(kTlcTr), std::end(kTlcTr)));
  CHECK(tlc.tPROG == std::vector<Tick>(std::begin(kTlcTprog), std::end(kTlcTprog)));
  CHECK(tlc.tBERS == kTlcTbers);
  CHECK_FALSE(tlc.one_shot);
  const auto& slc = t.of(CellMode::kSlc);
  REQUIRE(slc.present);
  CHECK(slc.tR == std::vector<Tick>{kSlcTr});
  CHECK(slc.tBERS == kSlcTbers);
  CHECK_FALSE(t.of(CellMode::kMlc).present);
  CHECK(t.pages_per_program(CellMode::kTlc) == 1u);
  CHECK(t.bus_time(4096) == bus(4096));

  SECTION("t_cmd defaults to zero") {
    std::string yaml = kDriveYaml;
    const std::size_t at = yaml.find("t_cmd:");
    REQUIRE(at != std::string::npos);
    const std::size_t line = yaml.rfind('\n', at) + 1;
    yaml.erase(line, yaml.find('\n', at) - line + 1);
    auto bare = ConfigDoc::parse(yaml, "nand.yaml", "drive", {});
    CHECK(timing_of(*bare, geo).t_cmd == 0u);
  }
  SECTION("a null t_cmd is an error, not the default") {
    auto null = ConfigDoc::parse(kDriveYaml, "nand.yaml", "drive", {"drive.nand.t_cmd=~"});
    CHECK_THROWS_WITH(timing_of(*null, geo), Catch::Contains("drive.nand.t_cmd: expected a value"));
  }
}

TEST_CASE("ModeTiming picks tR and tPROG by page index modulo the bits per cell") {
  auto doc = ConfigDoc::parse(kDriveYaml, "nand.yaml", "drive", {});
  const Geometry geo = geometry_of(*doc);
  const NandTiming t = timing_of(*doc, geo);
  for (std::uint32_t page = 0; page < kPagesPerBlock; ++page) {
    CHECK(t.of(CellMode::kTlc).read_time(page) == kTlcTr[page % 3]);
    CHECK(t.of(CellMode::kTlc).program_time(page) == kTlcTprog[page % 3]);
    CHECK(t.of(CellMode::kSlc).read_time(page) == kSlcTr);
    CHECK(t.of(CellMode::kSlc).program_time(page) == kSlcTprog);
  }
}

TEST_CASE("NandTiming requires timing for the native cell mode") {
  const char yaml[] = R"(
drive:
  nand:
    channels: 1
    dies_per_channel: 1
    planes: 1
    blocks_per_plane: 8
    pages_per_block: 12
    page_size: 16KiB
    cell: tlc
    bus: 400MT/s
    timing:
      slc: {tR: 30us, tPROG: 200us, tBERS: 2ms}
)";
  const std::string msg = config_error(yaml, {});
  CHECK_THAT(msg, Contains("drive.nand.timing.tlc:"));
  CHECK_THAT(msg, Contains("native cell mode"));
}

TEST_CASE("NandTiming rejects tR and tPROG lists that do not match the bits per cell") {
  SECTION("two read times for a three-bit cell") {
    const std::string msg = config_error({"drive.nand.timing.tlc.tR=[50us, 60us]"});
    CHECK_THAT(msg, Contains("drive.nand.timing.tlc.tR:"));
    CHECK_THAT(msg, Contains("(3)"));
  }
  SECTION("four program times for a three-bit cell") {
    const std::string msg =
        config_error({"drive.nand.timing.tlc.tPROG=[500us, 900us, 2000us, 3000us]"});
    CHECK_THAT(msg, Contains("drive.nand.timing.tlc.tPROG:"));
  }
  SECTION("two read times for SLC") {
    const std::string msg = config_error({"drive.nand.timing.slc.tR=[30us, 40us]"});
    CHECK_THAT(msg, Contains("drive.nand.timing.slc.tR:"));
    CHECK_THAT(msg, Contains("(1)"));
  }
  SECTION("a one-shot mode with a time per page type") {
    const std::string msg = config_error({"drive.nand.timing.tlc.one_shot=true"});
    CHECK_THAT(msg, Contains("drive.nand.timing.tlc.tPROG:"));
    CHECK_THAT(msg, Contains("one-shot"));
  }
  SECTION("a zero read time") {
    CHECK_THAT(config_error({"drive.nand.timing.slc.tR=0"}), Contains("drive.nand.timing.slc.tR:"));
  }
}

// ---- NandArray: single operations ----

TEST_CASE("A read completes after t_cmd, its page type's tR and the data-out transfer") {
  for (std::uint32_t page = 0; page < 6; ++page) {
    for (std::uint32_t bytes : {4096u, 3 * 4096u, kDiePageBytes}) {
      Bench b;
      const auto id = b.read(0, page, bytes);
      b.run();
      INFO("page " << page << ", " << bytes << " bytes");
      CHECK(b.done_at(id) == kTcmd + kTlcTr[page % 3] + bus(bytes));
    }
  }
}

TEST_CASE("A read of an SLC-mode block on a TLC part takes the SLC tR") {
  for (std::uint32_t page = 0; page < 3; ++page) {
    Bench b;
    const auto id = b.read(1, page, 4096, TxnSource::kHostRead, CellMode::kSlc);
    b.run();
    CHECK(b.done_at(id) == kTcmd + kSlcTr + bus(4096));
  }
}

TEST_CASE("A program completes after t_cmd, the data-in transfer and its page type's tPROG") {
  for (std::uint32_t page = 0; page < 6; ++page) {
    Bench b;
    const auto id = b.program(3, page);
    b.run();
    INFO("page " << page);
    CHECK(b.done_at(id) == kTcmd + bus(kDiePageBytes) + kTlcTprog[page % 3]);
  }
  Bench b;
  const auto id = b.program(0, 5, CellMode::kSlc);
  b.run();
  CHECK(b.done_at(id) == kTcmd + bus(kDiePageBytes) + kSlcTprog);
}

TEST_CASE("A program or read issued plane by plane takes the array once per plane") {
  // A controller that does not batch planes sends the die-page's data once
  // and runs one single-plane operation per plane, one after another.
  for (std::uint32_t page = 0; page < 3; ++page) {
    Bench b;
    const auto prog = b.program(0, page, CellMode::kTlc, 1, kPlanes);
    const auto read = b.read(1, page, kDiePageBytes, TxnSource::kGc, CellMode::kTlc, kPlanes);
    b.run();
    INFO("page " << page);
    CHECK(b.done_at(prog) == kTcmd + bus(kDiePageBytes) + kPlanes * kTlcTprog[page % 3]);
    // Die 1 is on the other channel: its read does not wait for die 0's data-in.
    CHECK(b.done_at(read) == kTcmd + kPlanes * kTlcTr[page % 3] + bus(kDiePageBytes));
  }
}

TEST_CASE("An erase completes after t_cmd and tBERS of the block's mode") {
  Bench b;
  const auto tlc = b.erase(0, CellMode::kTlc);
  const auto slc = b.erase(1, CellMode::kSlc);
  b.run();
  CHECK(b.done_at(tlc) == kTcmd + kTlcTbers);
  CHECK(b.done_at(slc) == kTcmd + kSlcTbers);
}

// ---- QLC: four page types ----

namespace {

constexpr Tick kQlcTr[4] = {60_us, 80_us, 100_us, 120_us};
constexpr Tick kQlcTprog[4] = {400_us, 800_us, 1600_us, 3200_us};
constexpr Tick kQlcTbers = 6_ms;

// The test drive as a QLC part (16 pages per block: whole 4-bit wordlines)
// with `qlc` as its QLC timings; its SLC timings are the test drive's.
std::string qlc_yaml(const std::string& qlc) {
  std::string y = kDriveYaml;
  auto swap = [&](const std::string& from, const std::string& to) {
    y.replace(y.find(from), from.size(), to);
  };
  swap("pages_per_block: 12", "pages_per_block: 16");
  swap("cell: tlc", "cell: qlc");
  swap("tlc: {tR: [50us, 60us, 70us], tPROG: [500us, 900us, 2000us], tBERS: 4ms}", "qlc: " + qlc);
  return y;
}

// Programmed a page at a time: a time per page type.
const std::string kQlcYaml =
    qlc_yaml("{tR: [60us, 80us, 100us, 120us], tPROG: [400us, 800us, 1600us, 3200us], tBERS: 6ms}");

}  // namespace

TEST_CASE("A one-shot program moves every page of the wordline and takes one tPROG") {
  // TLC and QLC: 3 and 4 pages per program; reads keep their page type's time.
  std::string tlc = kDriveYaml;
  const std::string from = "tPROG: [500us, 900us, 2000us], tBERS: 4ms}";
  tlc.replace(tlc.find(from), from.size(), "tPROG: 1500us, tBERS: 4ms, one_shot: true}");
  const std::string qlc =
      qlc_yaml("{tR: [60us, 80us, 100us, 120us], tPROG: 6ms, tBERS: 6ms, one_shot: true}");
  struct Part {
    const std::string& yaml;
    CellMode mode;
    Tick tprog;
    const Tick* tr;
  };
  for (const Part& c :
       {Part{tlc, CellMode::kTlc, 1500_us, kTlcTr}, Part{qlc, CellMode::kQlc, 6_ms, kQlcTr}}) {
    const std::uint32_t bits = bits_per_cell(c.mode);
    INFO(bits << " bits per cell");
    Bench shot(c.yaml);
    REQUIRE(shot.timing().pages_per_program(c.mode) == bits);
    REQUIRE(shot.timing().pages_per_program(CellMode::kSlc) == 1u);
    const auto id = shot.program(0, bits, c.mode, bits);
    shot.run();
    CHECK(shot.done_at(id) == kTcmd + bus(bits * kDiePageBytes) + c.tprog);
    CHECK(shot.nand().stats().programs[bits] == 1u);
    CHECK(shot.nand().stats().page_programs[bits] == bits * kPlanes);
    CHECK(shot.nand().stats().bus_bytes == bits * kDiePageBytes);
    for (std::uint32_t page = bits; page < 2 * bits; ++page) {
      Bench b(c.yaml);
      const auto rd = b.read(0, page, 4096, TxnSource::kHostRead, c.mode);
      b.run();
      CHECK(b.done_at(rd) == kTcmd + c.tr[page % bits] + bus(4096));
    }
  }
}

TEST_CASE("A QLC part reads and programs each of its four page types in that type's time") {
  for (std::uint32_t page = 0; page < 8; ++page) {
    Bench b(kQlcYaml);
    REQUIRE(b.geo().native_mode == CellMode::kQlc);
    const auto rd = b.read(0, page, 4096, TxnSource::kHostRead, CellMode::kQlc);
    const auto pr = b.program(1, page, CellMode::kQlc);  // die 1: the other channel
    b.run();
    INFO("page " << page);
    CHECK(b.done_at(rd) == kTcmd + kQlcTr[page % 4] + bus(4096));
    CHECK(b.done_at(pr) == kTcmd + bus(kDiePageBytes) + kQlcTprog[page % 4]);
  }
  // Its SLC-mode blocks take the SLC times; the erase is the mode's.
  Bench b(kQlcYaml);
  const auto rd = b.read(0, 3, 4096, TxnSource::kHostRead, CellMode::kSlc);
  const auto er = b.erase(1, CellMode::kQlc);
  b.run();
  CHECK(b.done_at(rd) == kTcmd + kSlcTr + bus(4096));
  CHECK(b.done_at(er) == kTcmd + kQlcTbers);
  CHECK(b.timing().pages_per_program(CellMode::kQlc) == 1u);
  CHECK(b.geo().pages_in_mode(CellMode::kSlc) == 16u / 4);
}

TEST_CASE("QLC tR and tPROG lists other than one or four times are errors at file:line:col") {
  // A value in the file is located at its line; one replaced by --set at
  // its --set.
  std::string three = kQlcYaml;
  const std::string tr = "tR: [60us, 80us, 100us, 120us]";
  const std::size_t at = three.find(tr);
  three.replace(at, tr.size(), "tR: [60us, 80us, 100us]");
  const auto line = 1 + std::count(three.begin(), three.begin() + static_cast<long>(at), '\n');
  const std::string msg = config_error(three, {});
  CHECK_THAT(msg, Contains("nand.yaml:" + std::to_string(line) + ":"));
  CHECK_THAT(msg, Contains("drive.nand.timing.qlc.tR:"));
  CHECK_THAT(msg, Contains("(4)"));
  const std::string prog = config_error(kQlcYaml, {"drive.nand.timing.qlc.tPROG=[400us, 800us]"});
  CHECK_THAT(prog, Contains("--set drive.nand.timing.qlc.tPROG"));
  CHECK_THAT(prog, Contains("(4)"));
  // One time for every page type is fine; so are four.
  CHECK(config_error(kQlcYaml, {"drive.nand.timing.qlc.tR=90us"}) == "(no ConfigError)");
  CHECK(config_error(kQlcYaml, {}) == "(no ConfigError)");
  // QLC timings on a TLC part are a key nobody reads (ConfigDoc::check_unused).
  auto doc = ConfigDoc::parse(kDriveYaml, "nand.yaml", "drive",
                              {"drive.nand.timing.qlc={tR: 90us, tPROG: 3ms, tBERS: 6ms}"});
  const Geometry geo = geometry_of(*doc);
  timing_of(*doc, geo);
  CHECK_THROWS_WITH(doc->check_unused(), Contains("drive.nand.timing.qlc"));
}

// ---- NandArray: channels and dies ----

TEST_CASE("Two dies on the same channel serialize transfers but overlap array operations") {
  Bench b;
  const std::uint32_t d0 = 0;
  const std::uint32_t d1 = kChannels;  // the next die on channel 0
  REQUIRE(b.geo().channel_of(d0) == b.geo().channel_of(d1));

  SECTION("programs: the second data-in waits for the first, tPROGs overlap") {
    const auto a = b.program(d0, 0);
    const auto c = b.program(d1, 0);
    b.run();
    const Tick data_in = kTcmd + bus(kDiePageBytes);
    CHECK(b.done_at(a) == data_in + kTlcTprog[0]);
    CHECK(b.done_at(c) == 2 * data_in + kTlcTprog[0]);
    // Far less than running the two programs back to back.
    CHECK(b.done_at(c) < 2 * (data_in + kTlcTprog[0]));
  }
  SECTION("reads: command cycles and data-out take turns on the channel, tRs overlap") {
    const std::uint32_t bytes = kPageSize;
    const auto a = b.read(d0, 0, bytes);
    const auto c = b.read(d1, 0, bytes);
    b.run();
    // Die 0: command [0, t_cmd), tR, data-out right away.
    const Tick out0_end = kTcmd + kTlcTr[0] + bus(bytes);
    // Die 1: command waits for die 0's command; data-out waits for its tR
    // and for die 0's data-out.
    const Tick tr1_end = 2 * kTcmd + kTlcTr[0];
    const Tick out1_end = std::max(tr1_end, out0_end) + bus(bytes);
    CHECK(b.done_at(a) == out0_end);
    CHECK(b.done_at(c) == out1_end);
  }
  SECTION("a read command slips in after one data-in burst and its data-out waits") {
    const auto p = b.program(d0, 1);
    const auto r = b.read(d1, 0, kPageSize);
    b.run();
    const Tick data_in = kTcmd + bus(kDiePageBytes);
    CHECK(b.done_at(p) == data_in + kTlcTprog[1]);
    // The command waits for the 4 KiB burst in flight, not the whole data-in...
    const Tick cmd_end = std::min(data_in, kBurst) + kTcmd;
    const Tick tr_end = cmd_end + kTlcTr[0];
    // ...which it stretches by t_cmd; the data-out queues behind it.
    const Tick out_start = std::max(tr_end, data_in + kTcmd);
    CHECK(b.done_at(r) == out_start + bus(kPageSize));
    CHECK(b.done_at(r) < data_in + kTcmd + kTlcTr[0] + bus(kPageSize));
  }
  SECTION("an erase command slips in after one data-in burst, then tBERS overlaps tPROG") {
    const auto p = b.program(d0, 1);
    const auto e = b.erase(d1);
    b.run();
    const Tick data_in = kTcmd + bus(kDiePageBytes);
    CHECK(b.done_at(p) == data_in + kTlcTprog[1]);
    CHECK(b.done_at(e) == std::min(data_in, kBurst) + kTcmd + kTlcTbers);
  }
  SECTION("a command near the end of a transfer waits only for the rest of it") {
    b.program(d0, 1);
    const Tick data_in = kTcmd + bus(kDiePageBytes);
    const Tick remaining = kBurst / 4;
    b.engine().advance_to(data_in - remaining);
    const auto e = b.erase(d1);
    b.run();
    CHECK(b.done_at(e) == data_in + kTcmd + kTlcTbers);
  }
}

// The slip rule above lets a command into the next gap between bursts; two
// commands waiting for the same gap still have to take turns on the channel.
TEST_CASE("Commands that slip into the same gap between bursts take turns on the channel") {
  Bench b(std::string(kDriveYaml), {"drive.nand.dies_per_channel=3"});
  REQUIRE(b.geo().channel_of(0) == b.geo().channel_of(kChannels));
  REQUIRE(b.geo().channel_of(0) == b.geo().channel_of(2 * kChannels));
  b.program(0, 0);
  const auto e1 = b.erase(kChannels);
  const auto e2 = b.erase(2 * kChannels);
  b.run();
  const Tick data_in = kTcmd + bus(kDiePageBytes);
  const Tick first_cmd_end = std::min(data_in, kBurst) + kTcmd;
  CHECK(b.done_at(e1) == first_cmd_end + kTlcTbers);
  CHECK(b.done_at(e2) >= first_cmd_end + kTcmd + kTlcTbers);
}

TEST_CASE("Dies on different channels run fully in parallel") {
  const std::uint32_t d0 = 0;
  const std::uint32_t d1 = 1;
  // Dies 2 and 3: the next die on the same channel as dies 0 and 1.
  const std::uint32_t d2 = d0 + kChannels;
  const std::uint32_t d3 = d1 + kChannels;
  Bench alone;
  REQUIRE(alone.geo().channel_of(d0) != alone.geo().channel_of(d1));
  const auto alone_p = alone.program(d0, 2);
  const auto alone_r = alone.read(d2, 1, kPageSize);
  alone.run();

  Bench both;
  const auto p0 = both.program(d0, 2);
  const auto p1 = both.program(d1, 2);
  const auto r0 = both.read(d2, 1, kPageSize);
  const auto r1 = both.read(d3, 1, kPageSize);
  both.run();

  const Tick data_in = kTcmd + bus(kDiePageBytes);
  const Tick program = data_in + kTlcTprog[2];
  const Tick tr_end = std::min(data_in, kBurst) + kTcmd + kTlcTr[1];
  const Tick read = std::max(tr_end, data_in + kTcmd) + bus(kPageSize);
  CHECK(alone.done_at(alone_p) == program);
  CHECK(alone.done_at(alone_r) == read);
  // The other channel's identical traffic changes nothing.
  CHECK(both.done_at(p0) == program);
  CHECK(both.done_at(p1) == program);
  CHECK(both.done_at(r0) == read);
  CHECK(both.done_at(r1) == read);
}

TEST_CASE("A die runs one operation at a time, in arrival order") {
  Bench b;
  const auto first = b.program(0, 0);
  const auto second = b.program(0, 1);
  const auto third = b.erase(0);
  CHECK_FALSE(b.nand().die_idle(0));
  CHECK(b.nand().queued_programs(0) == 3u);
  CHECK(b.nand().die_idle(1));
  b.run();

  const Tick data_in = kTcmd + bus(kDiePageBytes);
  const Tick first_end = data_in + kTlcTprog[0];
  const Tick second_end = first_end + data_in + kTlcTprog[1];
  const Tick third_end = second_end + kTcmd + kTlcTbers;
  CHECK(b.done_at(first) == first_end);
  CHECK(b.done_at(second) == second_end);
  CHECK(b.done_at(third) == third_end);
  CHECK(b.order() == std::vector<std::uint64_t>{first, second, third});
  CHECK(b.nand().die_idle(0));
  CHECK(b.nand().queued_programs(0) == 0u);
  CHECK(b.live_txns() == 0u);
}

TEST_CASE("An operation submitted later starts at its submission time on an idle die") {
  Bench b;
  b.engine().advance_to(1_ms);
  const auto id = b.read(2, 4, 4096);
  b.run();
  CHECK(b.done_at(id) == 1_ms + kTcmd + kTlcTr[4 % 3] + bus(4096));
}

TEST_CASE("Host and mapping reads waiting on a die are dispatched before programs and GC reads") {
  Bench b;
  const auto running = b.program(0, 0);  // starts at once
  const auto waiting_program = b.program(0, 1);
  const auto gc_read = b.read(0, 2, 8192, TxnSource::kGc);
  const auto host_read = b.read(0, 0, 4096, TxnSource::kHostRead);
  const auto map_read = b.read(0, 1, 4096, TxnSource::kMapping);
  // Host and mapping reads do not count as queued programs.
  CHECK(b.nand().queued_programs(0) == 3u);
  b.run();

  const Tick data_in = kTcmd + bus(kDiePageBytes);
  const Tick running_end = data_in + kTlcTprog[0];
  const Tick host_end = running_end + kTcmd + kTlcTr[0] + bus(4096);
  const Tick map_end = host_end + kTcmd + kTlcTr[1] + bus(4096);
  const Tick program_end = map_end + data_in + kTlcTprog[1];
  const Tick gc_end = program_end + kTcmd + kTlcTr[2] + bus(8192);
  CHECK(b.order() ==
        std::vector<std::uint64_t>{running, host_read, map_read, waiting_program, gc_read});
  CHECK(b.done_at(running) == running_end);
  CHECK(b.done_at(host_read) == host_end);
  CHECK(b.done_at(map_read) == map_end);
  CHECK(b.done_at(waiting_program) == program_end);
  CHECK(b.done_at(gc_read) == gc_end);
}

// ---- NandArray: statistics ----

TEST_CASE("NandArray stats count operations, pages and bus bytes per cell mode") {
  Bench b;
  std::uint64_t bytes = 0;
  b.read(0, 0, 4096);
  b.read(0, 1, 8192, TxnSource::kGc);
  b.read(0, 2, 8192, TxnSource::kHostRead, CellMode::kSlc);
  bytes += 4096 + 8192 + 8192;
  for (std::uint32_t p = 0; p < 3; ++p) b.program(0, p);
  b.program(0, 0, CellMode::kSlc);
  bytes += 4 * kDiePageBytes;
  b.erase(0, CellMode::kTlc);
  b.erase(0, CellMode::kSlc);
  b.erase(0, CellMode::kSlc);
  b.run();

  const NandStats& s = b.nand().stats();
  const unsigned slc = 1;
  const unsigned tlc = 3;
  CHECK(s.reads[tlc] == 2u);
  CHECK(s.reads[slc] == 1u);
  CHECK(s.page_reads[tlc] == 2u * kPlanes);
  CHECK(s.page_reads[slc] == 1u * kPlanes);
  CHECK(s.programs[tlc] == 3u);
  CHECK(s.programs[slc] == 1u);
  CHECK(s.page_programs[tlc] == 3u * kPlanes);
  CHECK(s.page_programs[slc] == 1u * kPlanes);
  CHECK(s.erases[tlc] == 1u);
  CHECK(s.erases[slc] == 2u);
  CHECK(s.reads[2] == 0u);
  CHECK(s.programs[2] == 0u);
  CHECK(s.total(s.reads) == 3u);
  CHECK(s.total(s.programs) == 4u);
  CHECK(s.total(s.erases) == 3u);
  CHECK(s.bus_bytes == bytes);
  // Everything ran back to back on die 0 from time 0, so the die was busy
  // until the last completion.
  CHECK(s.die_busy == b.engine().now());
  CHECK(b.order().size() == 10u);
}

TEST_CASE("NandArray die_busy sums the busy time of every die") {
  Bench b;
  b.erase(0);
  b.erase(1);
  b.erase(2);  // same channel as die 0: its command waits t_cmd
  b.run();
  // Each die is busy from dispatch (time 0) to completion.
  CHECK(b.nand().stats().die_busy == 3 * (kTcmd + kTlcTbers) + kTcmd);
}

// ---- NandArray: program and erase suspend ----

namespace {

constexpr Tick kSuspendLatency = 20_us;
constexpr Tick kResumeLatency = 10_us;

std::vector<std::string> suspend_on(const std::string& which = "program: true, erase: true",
                                    int max_per_operation = 2, bool cache_program = false) {
  return {"drive.nand.suspend={" + which +
              ", suspend_latency: 20us, resume_latency: 10us, max_per_operation: " +
              std::to_string(max_per_operation) + "}",
          std::string("drive.nand.cache_program=") + (cache_program ? "true" : "false")};
}

// A 4 KiB read of a lower page while the array is free for it: what a read
// that suspends an operation takes from its arrival, the channel being free.
const Tick kSuspendedRead = kSuspendLatency + kTlcTr[0] + bus(4096);

bool same_stats(const NandStats& a, const NandStats& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Reads of every kind arriving while programs and erases run on dies that
// share a channel, some in the middle of an operation.
void mixed_traffic(Bench& b) {
  b.program(0, 2);
  b.program(0, 1);
  b.program(2, 0);
  b.erase(1);
  b.engine().advance_to(300_us);
  b.read(0, 0, 4096);
  b.read(0, 1, 8192, TxnSource::kGc);
  b.map_read(0, 2, true);
  b.read(1, 0, 4096);
  b.engine().advance_to(700_us);
  b.read(2, 1, 4096);
  b.erase(0);
  b.engine().advance_to(3_ms);
  b.read(0, 2, 4096);
  b.map_read(1, 1, false);
  b.run();
}

}  // namespace

TEST_CASE("Without suspend a die runs the same whether the suspend block is absent or off") {
  for (const bool cache_program : {false, true}) {
    const std::string cache =
        std::string("drive.nand.cache_program=") + (cache_program ? "true" : "false");
    Bench absent(kDriveYaml, {cache});
    Bench off(kDriveYaml,
              {cache,
               "drive.nand.suspend={program: false, erase: false, suspend_latency: 20us, "
               "resume_latency: 10us, max_per_operation: 4}"});
    REQUIRE_FALSE(absent.timing().suspend.enabled());
    REQUIRE_FALSE(off.timing().suspend.enabled());
    mixed_traffic(absent);
    mixed_traffic(off);
    INFO("cache programming " << cache_program);
    CHECK(absent.completions() == off.completions());
    CHECK(absent.order() == off.order());
    CHECK(same_stats(absent.nand().stats(), off.nand().stats()));
    CHECK(off.nand().stats().program_suspends == 0u);
    CHECK(off.nand().stats().suspend_reads == 0u);
    // The traffic has reads that waited for a whole program: die 0's first
    // host read (at 300 us) ends after its program (2000 us).
    CHECK(off.done_at(4) > kTcmd + bus(kDiePageBytes) + kTlcTprog[2]);
  }
}

TEST_CASE(
    "A host read mid-program waits for the suspend latency and its own read, not the program") {
  Bench b(kDriveYaml, suspend_on());
  const auto p = b.program(0, 2);
  const Tick data_in = kTcmd + bus(kDiePageBytes);
  const Tick program_end = data_in + kTlcTprog[2];
  const Tick arrive = data_in + 300_us;
  b.engine().advance_to(arrive);
  const auto r = b.read(0, 0, 4096);
  b.run();
  // Suspend latency, tR, data-out: nothing of the 1.7 ms of program left.
  CHECK(b.done_at(r) == arrive + kSuspendedRead);
  CHECK(b.done_at(r) - arrive < program_end - arrive);
  // The program ends later by exactly the time the read took, plus the resume.
  CHECK(b.done_at(p) == program_end + kSuspendedRead + kResumeLatency);
  CHECK(b.order() == std::vector<std::uint64_t>{r, p});
  const NandStats& s = b.nand().stats();
  CHECK(s.program_suspends == 1u);
  CHECK(s.erase_suspends == 0u);
  CHECK(s.suspend_reads == 1u);
  CHECK(b.nand().die_idle(0));
  CHECK(b.live_txns() == 0u);
}

TEST_CASE("A host read suspends an erase as it does a program") {
  Bench b(kDriveYaml, suspend_on());
  const auto e = b.erase(0);
  const Tick arrive = 1_ms;
  b.engine().advance_to(arrive);
  const auto r = b.read(0, 0, 4096);
  b.run();
  CHECK(b.done_at(r) == arrive + kSuspendedRead);
  CHECK(b.done_at(e) == kTcmd + kTlcTbers + kSuspendedRead + kResumeLatency);
  CHECK(b.nand().stats().erase_suspends == 1u);
  CHECK(b.nand().stats().program_suspends == 0u);
}

TEST_CASE("Reads that reach a suspended die are served in the same suspension, which counts once") {
  Bench b(kDriveYaml, suspend_on());
  const auto p = b.program(0, 2);
  const Tick data_in = kTcmd + bus(kDiePageBytes);
  const Tick arrive = data_in + 300_us;
  b.engine().advance_to(arrive);
  const auto r1 = b.read(0, 0, 4096);
  b.engine().advance_to(arrive + 5_us);  // during the suspend latency
  const auto r2 = b.read(0, 1, 4096);
  b.run();
  const Tick r1_end = arrive + kSuspendedRead;
  // The second read follows the first as on an idle die: command, tR, data-out.
  const Tick r2_end = r1_end + kTcmd + kTlcTr[1] + bus(4096);
  CHECK(b.done_at(r1) == r1_end);
  CHECK(b.done_at(r2) == r2_end);
  CHECK(b.done_at(p) == data_in + kTlcTprog[2] + (r2_end - arrive) + kResumeLatency);
  CHECK(b.nand().stats().program_suspends == 1u);
  CHECK(b.nand().stats().suspend_reads == 2u);
}

TEST_CASE("A program is suspended at most max_per_operation times, then reads wait for it") {
  Bench b(kDriveYaml, suspend_on("program: true, erase: true", 2));
  const auto p = b.program(0, 2);
  const Tick data_in = kTcmd + bus(kDiePageBytes);
  std::vector<std::uint64_t> reads;
  std::vector<Tick> arrivals;
  for (Tick at = data_in + 100_us; reads.size() < 3; at += 200_us) {
    b.engine().advance_to(at);
    arrivals.push_back(at);
    reads.push_back(b.read(0, 0, 4096));
  }
  b.run();
  CHECK(b.done_at(reads[0]) == arrivals[0] + kSuspendedRead);
  CHECK(b.done_at(reads[1]) == arrivals[1] + kSuspendedRead);
  // Two suspensions moved the program; the third read waits for its end.
  const Tick program_end = data_in + kTlcTprog[2] + 2 * (kSuspendedRead + kResumeLatency);
  CHECK(b.done_at(p) == program_end);
  CHECK(b.done_at(reads[2]) == program_end + kTcmd + kTlcTr[0] + bus(4096));
  CHECK(b.nand().stats().program_suspends == 2u);
  CHECK(b.nand().stats().suspend_reads == 2u);

  SECTION("the next program has a limit of its own") {
    const Tick start = b.engine().now();
    const auto p2 = b.program(0, 0);
    b.engine().advance_to(start + data_in + 100_us);
    const auto r = b.read(0, 0, 4096);
    b.run();
    CHECK(b.done_at(r) == start + data_in + 100_us + kSuspendedRead);
    CHECK(b.done_at(p2) == start + data_in + kTlcTprog[0] + kSuspendedRead + kResumeLatency);
    CHECK(b.nand().stats().program_suspends == 3u);
  }
}

TEST_CASE("Only reads a host read waits for suspend, and only the operations the config names") {
  const Tick data_in = kTcmd + bus(kDiePageBytes);
  const Tick program_end = data_in + kTlcTprog[2];
  const Tick arrive = data_in + 300_us;
  // What a read arriving mid-program takes when it waits for the program.
  const Tick after_program = program_end + kTcmd + kTlcTr[0] + bus(4096);
  SECTION("a GC read waits for the program") {
    Bench b(kDriveYaml, suspend_on());
    const auto p = b.program(0, 2);
    b.engine().advance_to(arrive);
    const auto r = b.read(0, 0, 4096, TxnSource::kGc);
    b.run();
    CHECK(b.done_at(p) == program_end);
    CHECK(b.done_at(r) == after_program);
    CHECK(b.nand().stats().program_suspends == 0u);
  }
  SECTION("a translation-page read suspends for a host read's lookup, not for a map update") {
    for (const bool lookup : {true, false}) {
      Bench b(kDriveYaml, suspend_on());
      const auto p = b.program(0, 2);
      b.engine().advance_to(arrive);
      const auto r = b.map_read(0, 0, lookup);
      b.run();
      INFO("for a host read's lookup: " << lookup);
      CHECK(b.done_at(r) == (lookup ? arrive + kSuspendedRead : after_program));
      CHECK(b.done_at(p) == (lookup ? program_end + kSuspendedRead + kResumeLatency : program_end));
    }
  }
  SECTION("program suspend alone leaves erases whole") {
    Bench b(kDriveYaml, suspend_on("program: true, erase: false"));
    const auto e = b.erase(0);
    b.engine().advance_to(1_ms);
    const auto r = b.read(0, 0, 4096);
    b.run();
    CHECK(b.done_at(e) == kTcmd + kTlcTbers);
    CHECK(b.done_at(r) == kTcmd + kTlcTbers + kTcmd + kTlcTr[0] + bus(4096));
    CHECK(b.nand().stats().erase_suspends == 0u);
  }
  SECTION("erase suspend alone leaves programs whole") {
    Bench b(kDriveYaml, suspend_on("program: false, erase: true"));
    const auto p = b.program(0, 2);
    b.engine().advance_to(arrive);
    const auto r = b.read(0, 0, 4096);
    b.run();
    CHECK(b.done_at(p) == program_end);
    CHECK(b.done_at(r) == after_program);
    CHECK(b.nand().stats().program_suspends == 0u);
  }
}

TEST_CASE(
    "With cache programming a read suspends the program in the array and the next one starts "
    "later") {
  Bench b(kDriveYaml, suspend_on("program: true, erase: true", 2, true));
  REQUIRE(b.timing().cache_program);
  const auto p1 = b.program(0, 0);
  const auto p2 = b.program(0, 1);  // its data waits in the cache register
  const Tick data_in = kTcmd + bus(kDiePageBytes);
  const Tick p1_end = data_in + kTlcTprog[0];
  const Tick p2_end = p1_end + kTlcTprog[1];
  const Tick arrive = 2 * data_in + 50_us;  // both data-ins are over
  REQUIRE(arrive < p1_end);
  b.engine().advance_to(arrive);
  const auto r = b.read(0, 0, 4096);
  b.run();
  const Tick moved = kSuspendedRead + kResumeLatency;
  CHECK(b.done_at(r) == arrive + kSuspendedRead);
  CHECK(b.done_at(p1) == p1_end + moved);
  CHECK(b.done_at(p2) == p2_end + moved);
  CHECK(b.order() == std::vector<std::uint64_t>{r, p1, p2});
  CHECK(b.nand().stats().program_suspends == 1u);
}

TEST_CASE(
    "With suspend a read that may not suspend waits in its queue, and a host read takes it along") {
  // Cache programming frees the interface while the program runs: without
  // suspend a read would take it and wait there for the program's end.
  Bench b(kDriveYaml, suspend_on("program: true, erase: true", 2, true));
  const auto p = b.program(0, 2);
  const Tick data_in = kTcmd + bus(kDiePageBytes);
  const Tick program_end = data_in + kTlcTprog[2];
  b.engine().advance_to(data_in + 100_us);
  SECTION("a map update's load goes first in the host read's suspension") {
    const auto m = b.map_read(0, 1, false);
    const Tick arrive = data_in + 300_us;
    b.engine().advance_to(arrive);
    const auto r = b.read(0, 0, 4096);
    b.run();
    const Tick m_end = arrive + kSuspendLatency + kTlcTr[1] + bus(4096);
    const Tick r_end = m_end + kTcmd + kTlcTr[0] + bus(4096);
    CHECK(b.done_at(m) == m_end);
    CHECK(b.done_at(r) == r_end);
    CHECK(b.done_at(p) == program_end + (r_end - arrive) + kResumeLatency);
    CHECK(b.nand().stats().program_suspends == 1u);
    CHECK(b.nand().stats().suspend_reads == 2u);
  }
  SECTION("alone, it waits for the program's end, then issues its command") {
    const auto m = b.map_read(0, 1, false);
    const auto g = b.read(0, 0, 8192, TxnSource::kGc);
    b.run();
    CHECK(b.done_at(p) == program_end);
    const Tick m_end = program_end + kTcmd + kTlcTr[1] + bus(4096);
    CHECK(b.done_at(m) == m_end);
    CHECK(b.done_at(g) == m_end + kTcmd + kTlcTr[0] + bus(8192));
    CHECK(b.nand().stats().program_suspends == 0u);
  }
  SECTION("a GC read stays in its queue through a host read's suspension") {
    const auto g = b.read(0, 1, 8192, TxnSource::kGc);
    const Tick arrive = data_in + 300_us;
    b.engine().advance_to(arrive);
    const auto r = b.read(0, 0, 4096);
    b.run();
    const Tick moved_end = program_end + kSuspendedRead + kResumeLatency;
    CHECK(b.done_at(r) == arrive + kSuspendedRead);
    CHECK(b.done_at(p) == moved_end);
    CHECK(b.done_at(g) == moved_end + kTcmd + kTlcTr[1] + bus(8192));
    CHECK(b.nand().stats().suspend_reads == 1u);
  }
}

TEST_CASE(
    "Under mixed traffic with suspend every operation completes once, no sooner than its own "
    "time") {
  for (const bool cache_program : {false, true}) {
    Bench b(kDriveYaml, suspend_on("program: true, erase: true", 3, cache_program));
    std::mt19937 rng(7);
    std::map<std::uint64_t, std::pair<Tick, Tick>> least;  // id -> (submitted, least time it takes)
    std::vector<std::uint64_t> programs_of_die0;
    std::uint64_t submitted = 0;
    Tick at = 0;
    for (int k = 0; k < 400; ++k) {
      at += std::uniform_int_distribution<Tick>(0, 150_us)(rng);
      b.engine().advance_to(at);
      const auto die = std::uniform_int_distribution<std::uint32_t>(0, 3)(rng);
      const auto page = std::uniform_int_distribution<std::uint32_t>(0, 11)(rng);
      const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
      std::uint64_t id;
      Tick takes;
      if (kind < 3) {
        id = b.read(die, page, 4096, kind < 2 ? TxnSource::kHostRead : TxnSource::kGc);
        takes = kTlcTr[page % 3] + bus(4096);
      } else if (kind < 5) {
        id = b.map_read(die, page, kind == 3);
        takes = kTlcTr[page % 3] + bus(4096);
      } else if (kind < 9) {
        id = b.program(die, page);
        takes = bus(kDiePageBytes) + kTlcTprog[page % 3];
        if (die == 0) programs_of_die0.push_back(id);
      } else {
        id = b.erase(die);
        takes = kTlcTbers;
      }
      least[id] = {at, takes};
      ++submitted;
    }
    b.run();
    INFO("cache programming " << cache_program);
    CHECK(b.order().size() == submitted);
    for (const auto& [id, when] : least) CHECK(b.done_at(id) >= when.first + when.second);
    // A die's programs leave the array in the order they entered it.
    std::vector<std::uint64_t> done_programs;
    for (const auto id : b.order())
      if (std::find(programs_of_die0.begin(), programs_of_die0.end(), id) != programs_of_die0.end())
        done_programs.push_back(id);
    CHECK(done_programs == programs_of_die0);
    const NandStats& s = b.nand().stats();
    CHECK(s.program_suspends > 0u);
    CHECK(s.erase_suspends > 0u);
    CHECK(s.suspend_reads >= s.program_suspends + s.erase_suspends);
    for (std::uint32_t d = 0; d < 4; ++d) CHECK(b.nand().die_idle(d));
    CHECK(b.live_txns() == 0u);
  }
}

TEST_CASE("Suspend keys are read with their defaults and bad values are errors at file:line:col") {
  // The suspend block follows the test drive's last line.
  const auto lines_before =
      static_cast<int>(std::count(std::begin(kDriveYaml), std::end(kDriveYaml), '\n'));
  auto with_block = [](const std::string& block) {
    return std::string(kDriveYaml) + "    suspend:\n" + block;
  };
  auto at = [&](int line_in_block, int col) {
    return "nand.yaml:" + std::to_string(lines_before + 1 + line_in_block) + ":" +
           std::to_string(col) + ": ";
  };
  SECTION("absent: off") {
    auto doc = ConfigDoc::parse(kDriveYaml, "nand.yaml", "drive", {});
    const NandTiming t = timing_of(*doc, geometry_of(*doc));
    CHECK_FALSE(t.suspend.enabled());
  }
  SECTION("given: read as written, the rest defaulted") {
    auto doc = ConfigDoc::parse(with_block("      program: true\n      suspend_latency: 25us\n"),
                                "nand.yaml", "drive", {});
    const NandTiming t = timing_of(*doc, geometry_of(*doc));
    CHECK(t.suspend.enabled());
    CHECK(t.suspend.program);
    CHECK_FALSE(t.suspend.erase);
    CHECK(t.suspend.suspend_latency == 25_us);
    CHECK(t.suspend.resume_latency == 0u);
    CHECK(t.suspend.max_per_operation == 1u);
  }
  SECTION("errors") {
    CHECK(config_error(with_block("      erase: maybe\n"), {}) ==
          at(1, 14) + "drive.nand.suspend.erase: expected true or false, got 'maybe'");
    CHECK_THAT(
        config_error(with_block("      program: true\n      suspend_latency: -20us\n"), {}),
        Catch::StartsWith(at(2, 24) + "drive.nand.suspend.suspend_latency: expected a time"));
    CHECK_THAT(config_error(with_block("      resume_latency: soon\n"), {}),
               Catch::StartsWith(at(1, 23) + "drive.nand.suspend.resume_latency: expected a time"));
    CHECK(config_error(with_block("      max_per_operation: 300\n"), {}) ==
          at(1, 26) +
              "drive.nand.suspend.max_per_operation: expected an integer in [0, 255], got '300'");
    CHECK_THAT(
        config_error(with_block("      erase: true\n      max_per_operation: 0\n"), {}),
        Catch::StartsWith(at(2, 26) + "drive.nand.suspend.max_per_operation: expected at least 1"));
    // Off, a limit of 0 says the same thing and is accepted.
    CHECK(config_error(with_block("      program: false\n      max_per_operation: 0\n"), {}) ==
          "(no ConfigError)");
    CHECK_THAT(config_error({"drive.nand.suspend=yes"}),
               Contains("drive.nand.suspend: expected a map"));
  }
}
