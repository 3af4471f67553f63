// fio job files as workloads (issue 17): the job-file grammar, every
// supported option against the IO pattern fio documents for it (counts,
// sizes, offsets, mix, distribution shape), fio.json and the logs, the
// structure of fio.json against real fio's (skipped without the fio
// binary), and the review procedures of configs/fio against their YAML
// versions. The job files are in tests/fio/.
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "app/fio_report.h"
#include "host/fio/fio_job.h"
#include "host/workload/io_pattern.h"
#include "test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;
using Catch::Matchers::Contains;
using Json = nlohmann::ordered_json;

namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
const char* kTlc = "configs/drives/test_tlc_1gb.yaml";

std::optional<std::string> test_env(const std::string& name) {
  if (name == "SSDTWIN_FIO_TEST_BS") return std::string("16k");
  return std::nullopt;
}

std::string temp_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("ssdtwin_test_fio_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

FioWorkload load(const std::string& file, std::uint64_t user = kGiB, const std::string& out = "") {
  return load_fio_workload(source_path("tests/fio/" + file), user,
                           out.empty() ? temp_dir("load") : out, test_env);
}

const PhaseSpec& phase(const FioWorkload& w, const std::string& name) {
  for (const PhaseSpec& p : w.workload.phases)
    if (p.name == name) return p;
  FAIL("no phase " << name);
  return w.workload.phases.front();
}

std::vector<IoPattern::Io> draw(const PhaseSpec& s, std::size_t n) {
  Rng rng(s.seed ? s.seed : 1);
  IoPattern p(s, rng);
  std::vector<IoPattern::Io> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(p.next());
  return v;
}

// A job file written for a test (errors and edge cases).
std::string write_job(const std::string& name, const std::string& text) {
  const std::string path = temp_dir("jobs_" + name) + "/" + name + ".fio";
  std::ofstream(path) << text;
  return path;
}

std::string load_error(const std::string& text) {
  const std::string path = write_job("bad", text);
  try {
    load_fio_workload(path, kGiB, temp_dir("bad_out"), test_env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

struct FioRun {
  TestDrive drive;
  FioWorkload fio;
  RunReport report;
};

std::unique_ptr<FioRun> run_fio(const std::string& path, const std::string& out) {
  auto r = std::make_unique<FioRun>();
  r->drive = make_drive(kTlc);
  r->fio = load_fio_workload(path, r->drive.drive->user_bytes(), out, test_env);
  r->report = run_quiet(*r->drive.drive, r->fio.workload);
  return r;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double share(std::uint64_t part, std::uint64_t whole) {
  return static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

// ---- the job file ---------------------------------------------------------

TEST_CASE(
    "fio job files: the global section, include, variables, trailing comments, host-only options "
    "listed once as "
    "ignored") {
  const FioWorkload w = load("include.fio");
  REQUIRE(w.workload.phases.size() == 1);
  const PhaseSpec& p = w.workload.phases[0];
  CHECK(p.rw == RwKind::kRandWrite);
  CHECK(p.bs == 16384);  // ${SSDTWIN_FIO_TEST_BS} in the included file
  CHECK(p.span == 16 * kMiB);
  CHECK(p.ios == 100);
  CHECK_FALSE(p.random_map);
  // filename selects the namespace (/dev/nvme0n1: namespace 1), so it is
  // not among the host-only options.
  CHECK(w.ignored == std::vector<std::string>{"direct", "thread", "cpus_allowed"});
  CHECK(p.nsid == 1);
  REQUIRE(w.jobs.size() == 1);
  CHECK(w.jobs[0].group_reporting);
  CHECK(w.jobs[0].options == std::vector<std::pair<std::string, std::string>>{
                                 {"filename", "/dev/nvme0n1"}, {"cpus_allowed", "0-1"}});
}

TEST_CASE(
    "fio job files: bad input is an error naming the file, line, option and what was expected") {
  CHECK_THAT(load_error("[a]\nrw=write\nbs=${NO_SUCH_VAR}\n"),
             Contains("bad.fio:3") && Contains("NO_SUCH_VAR is not set"));
  CHECK_THAT(load_error("[a]\nrw=sideways\n"),
             Contains("bad.fio:2: rw=sideways: expected read, write"));
  CHECK_THAT(load_error("[a]\n\nfancy_feature=1\n"),
             Contains("bad.fio:3: fancy_feature=1: an fio option the simulator cannot honour"));
  CHECK_THAT(load_error("[a]\nbs=512\n"),
             Contains("bad.fio:2: bs=512: expected a multiple of 4KiB"));
  // Found by fuzz/fuzz_fio_job.cpp: sizes beyond 2^32 (bs) and 2^64 (any size) were
  // converted to integers first (undefined behaviour), checked after.
  CHECK_THAT(load_error("[a]\nbs=4294971392\n"),
             Contains("bad.fio:2: bs=4294971392: expected a multiple of 4KiB up to 256MiB"));
  CHECK_THAT(load_error("[a]\nbs=63333333333333333333333KiB\n"),
             Contains("bad.fio:2: bs=63333333333333333333333KiB: expected a size below 8 EiB"));
  CHECK_THAT(load_error("[a]\nsize=99999999999t\n"),
             Contains("bad.fio:2: size=99999999999t: expected a size below 8 EiB"));
  CHECK_THAT(load_error("[a]\nsize=2g\n"),
             Contains("bad.fio:2: size=2g: expected offset + size within"));
  CHECK_THAT(load_error("[a]\nverify=md5\n"),
             Contains("bad.fio:2: verify=md5") && Contains("--verify"));
  CHECK_THAT(load_error("[a]\nrw=randrw\nrate_iops=100\n"),
             Contains("bad.fio:3: rate_iops=100: fio limits each direction"));
  CHECK_THAT(load_error("[a]\nrandom_distribution=zipf:1\n"),
             Contains("expected a zipf theta above 0 and not 1.0"));
  CHECK_THAT(load_error("[a]\nrandom_distribution=zoned:50/5:30/15\n"),
             Contains("adding up to 100"));
  CHECK_THAT(load_error("[a]\nwrite_bw_log=x\n"),
             Contains("bad.fio:1: [a]: write_*_log: expected log_avg_msec"));
  CHECK_THAT(load_error("[a]\ntime_based\n"), Contains("time_based: expected a runtime"));
  CHECK_THAT(load_error("bs=4k\n[a]\n"),
             Contains("bad.fio:1: 'bs=4k': an option before any [section]"));
  CHECK_THAT(load_error("[global]\nbs=4k\n"), Contains("no job sections"));
  CHECK_THAT(load_error("[a]\ninclude missing.inc\n"),
             Contains("bad.fio:2: include") && Contains("cannot read"));
  CHECK_THAT(load_error("[a]\nzonemode=sparse\n"), Contains("expected none, strided or zbd"));
  CHECK_THAT(load_error("[a]\nzonemode=zbd\nrw=trim\n"), Contains("with zonemode=zbd"));
  CHECK_THAT(load_error("[a]\nstartdelay=1-2\n"), Contains("a random start delay"));
}

TEST_CASE(
    "fio sizes and times: binary by default, decimal with kb_base=1000, IEC always binary, runtime "
    "in s, thinktime in us") {
  const FioWorkload w = load_fio_workload(
      write_job("units",
                "[global]\nnumber_ios=1\n[a]\nbs=128KiB\nsize=1GB\nkb_base=1000\n"
                "[b]\nbs=1m\nsize=0x100000\nruntime=1.5\nthinktime=250\nramp_time=2m\n"),
      4 * kGiB, temp_dir("units"), test_env);
  const PhaseSpec& a = w.workload.phases[0];
  CHECK(a.bs == 131072);
  CHECK(a.span == 1'000'000'000ull - 1'000'000'000ull % 4096);
  const PhaseSpec& b = w.workload.phases[0].concurrent.at(0);
  CHECK(b.bs == kMiB);
  CHECK(b.span == kMiB);
  CHECK(b.runtime == 1500 * kMs);
  CHECK(b.thinktime == 250 * kUs);
  CHECK(b.ramp_time == 120 * kSec);
}

// ---- rw modes and modifiers ----------------------------------------------

TEST_CASE(
    "fio rw modes: sequential walks and wraps, random covers each block once per pass, mixes by "
    "rwmix") {
  const FioWorkload w = load("modes.fio");
  REQUIRE(w.workload.phases.size() == 9);
  const std::uint64_t blocks = kMiB / 4096;
  for (const char* name : {"read", "write", "trim"}) {
    const auto ios = draw(phase(w, name), blocks + 2);
    const IoOp op = std::string(name) == "read"    ? IoOp::kRead
                    : std::string(name) == "write" ? IoOp::kWrite
                                                   : IoOp::kTrim;
    for (std::size_t i = 0; i < ios.size(); ++i) {
      CHECK(ios[i].op == op);
      CHECK(ios[i].offset == (i % blocks) * 4096);
      CHECK(ios[i].bytes == 4096);
    }
  }
  for (const char* name : {"randread", "randwrite", "randtrim"}) {
    const PhaseSpec& p = phase(w, name);
    CHECK(p.random_map);
    CHECK(p.io_bytes == kMiB);  // one pass: io_size defaults to size
    const auto ios = draw(p, blocks);
    std::set<std::uint64_t> seen;
    for (const auto& io : ios) seen.insert(io.offset);
    CHECK(seen.size() == blocks);  // every block exactly once (fio's random map)
    CHECK_FALSE(std::is_sorted(ios.begin(), ios.end(),
                               [](auto& a, auto& b) { return a.offset < b.offset; }));
  }
  CHECK(draw(phase(w, "randtrim"), 1)[0].op == IoOp::kTrim);
  {
    // readwrite: 30% reads; reads and writes each walk their own sequence.
    const auto ios = draw(phase(w, "readwrite"), 20000);
    std::uint64_t next[2] = {0, 0}, reads = 0;
    for (const auto& io : ios) {
      const int op = static_cast<int>(io.op);
      REQUIRE(op < 2);
      CHECK(io.offset == next[op]);
      next[op] = (next[op] + 4096) % kMiB;
      reads += io.op == IoOp::kRead;
    }
    CHECK(share(reads, ios.size()) == Approx(0.30).margin(0.01));
  }
  {
    // randrw with rwmixwrite=25: 75% reads.
    const auto ios = draw(phase(w, "randrw"), 20000);
    std::uint64_t reads = 0;
    for (const auto& io : ios) reads += io.op == IoOp::kRead;
    CHECK(share(reads, ios.size()) == Approx(0.75).margin(0.01));
  }
  {
    // trimwrite: each block trimmed, then written; a pass is twice size.
    const PhaseSpec& p = phase(w, "trimwrite");
    CHECK(p.io_bytes == 2 * kMiB);
    const auto ios = draw(p, 8);
    for (std::size_t i = 0; i < ios.size(); ++i) {
      CHECK(ios[i].op == (i % 2 == 0 ? IoOp::kTrim : IoOp::kWrite));
      CHECK(ios[i].offset == (i / 2) * 4096);
    }
  }
}

TEST_CASE(
    "fio rw offset modifiers: write:8k skips 8k after each IO, randread:4 makes runs of 4, "
    "sequential or identical") {
  const FioWorkload w = load("modifiers.fio");
  const auto skip = draw(phase(w, "seq_skip"), 90);
  for (std::size_t i = 0; i < skip.size(); ++i)
    CHECK(skip[i].offset == (i * 12288) % (kMiB + 12288 - kMiB % 12288));
  // Wrapped back to the start once past the range (fio's behaviour in its iolog).
  CHECK(skip[86].offset == 0);
  const auto run = draw(phase(w, "rand_run"), 400);
  const auto same = draw(phase(w, "rand_identical"), 400);
  std::set<std::uint64_t> starts;
  for (std::size_t i = 0; i < 400; i += 4) {
    starts.insert(run[i].offset);
    for (std::size_t k = 1; k < 4; ++k) {
      if (run[i].offset + k * 4096 < kMiB) CHECK(run[i + k].offset == run[i].offset + k * 4096);
      CHECK(same[i + k].offset == same[i].offset);
    }
  }
  CHECK(starts.size() > 80);  // a new random offset every 4 IOs
}

// ---- sizes ----------------------------------------------------------------

TEST_CASE(
    "fio block sizes: bs per direction, bsrange, bssplit shares (a blank one takes the rest), "
    "blockalign") {
  const FioWorkload w = load("sizes.fio");
  CHECK(phase(w, "bs_per_direction").bs == 16384);  // bs=4k,16k: the write size for a write job
  {
    const auto ios = draw(phase(w, "bsrange"), 20000);
    std::set<std::uint32_t> sizes;
    for (const auto& io : ios) {
      CHECK(io.bytes >= 4096);
      CHECK(io.bytes <= 65536);
      CHECK(io.bytes % 4096 == 0);
      CHECK(io.offset % 4096 == 0);  // aligned to the smallest size, as fio aligns
      sizes.insert(io.bytes);
    }
    // Every multiple of 4k from 4k up (fio draws bytes uniformly in [min, max]
    // and rounds down to the minimum, so 64k itself is one draw in 61441).
    CHECK(sizes.size() >= 15);
  }
  {
    const auto ios = draw(phase(w, "bssplit"), 40000);
    std::map<std::uint32_t, std::uint64_t> n;
    for (const auto& io : ios) ++n[io.bytes];
    CHECK(share(n[4096], ios.size()) == Approx(0.50).margin(0.01));
    CHECK(share(n[65536], ios.size()) == Approx(0.25).margin(0.01));
    CHECK(share(n[kMiB], ios.size()) == Approx(0.25).margin(0.01));
  }
  {
    const PhaseSpec& p = phase(w, "blockalign");
    CHECK(p.block_align == 4096);
    const auto ios = draw(p, 2000);
    std::uint64_t off_grid = 0;
    for (const auto& io : ios) {
      CHECK(io.offset % 4096 == 0);
      CHECK(io.offset + io.bytes <= 64 * kMiB);
      off_grid += io.offset % 16384 != 0;
    }
    CHECK(share(off_grid, ios.size()) == Approx(0.75).margin(0.04));
  }
}

// ---- range and stop conditions --------------------------------------------

TEST_CASE(
    "fio range and stop conditions: offset/size in %, numjobs with offset_increment, io_size, "
    "io_limit, number_ios, loops") {
  const FioWorkload w = load("range.fio");
  const PhaseSpec& s = phase(w, "share");
  CHECK(s.offset == kGiB / 4);
  CHECK(s.span == kGiB / 4);
  const PhaseSpec& c = phase(w, "clones");
  REQUIRE(c.streams() == 4);
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(c.stream(k).offset == k * 128 * kMiB);
    CHECK(c.stream(k).span == 64 * kMiB);
    CHECK(draw(c.stream(k), 1)[0].offset == k * 128 * kMiB);
  }
  CHECK(phase(w, "io_size").io_bytes == 32 * kMiB);
  CHECK(phase(w, "io_limit").io_bytes == 8 * kMiB);
  CHECK(phase(w, "number_ios").ios == 1000);
  CHECK(phase(w, "loops").io_bytes == 24 * kMiB);

  // On a drive: each job moves what its stop condition says.
  const std::string out = temp_dir("range_run");
  const auto r = run_fio(source_path("tests/fio/range.fio"), out);
  auto bytes = [&](const std::string& name, IoOp op) {
    for (const PhaseReport& p : r->report.phases)
      if (p.spec->name == name) return p.result.bytes[static_cast<int>(op)];
    return std::uint64_t{0};
  };
  CHECK(bytes("share", IoOp::kRead) == 249999360);  // 25% of the 1 GB drive (999997440 B)
  CHECK(bytes("clones", IoOp::kWrite) == 4 * 64 * kMiB);
  CHECK(bytes("io_size", IoOp::kWrite) == 32 * kMiB);  // wraps over its 16m range twice
  CHECK(bytes("io_limit", IoOp::kWrite) == 8 * kMiB);
  CHECK(bytes("number_ios", IoOp::kRead) == 1000 * 4096);
  CHECK(bytes("loops", IoOp::kWrite) == 24 * kMiB);
}

// ---- time -----------------------------------------------------------------

TEST_CASE(
    "fio time: runtime caps, time_based runs its runtime after ramp_time, startdelay is idle time "
    "before a job, thinktime pauses") {
  const std::string out = temp_dir("timing");
  const auto r = run_fio(source_path("tests/fio/timing.fio"), out);
  const FioWorkload& w = r->fio;
  CHECK(phase(w, "capped").runtime == 10 * kMs);
  CHECK(phase(w, "capped").io_bytes == 64 * kMiB);
  CHECK(phase(w, "time_based").io_bytes == 0);
  // The start delay of a job alone after a stonewall is the phase before's idle time.
  CHECK(phase(w, "time_based").idle_after == 20 * kMs);
  CHECK(phase(w, "delayed").start_delay == 0);
  const PhaseSpec& together = phase(w, "together");
  REQUIRE(together.streams() == 2);
  CHECK(together.stream(1).start_delay == 10 * kMs);
  CHECK(phase(w, "think").thinktime == kMs);
  CHECK(phase(w, "think").thinktime_blocks == 8);

  std::map<std::string, const PhaseReport*> by_name;
  for (const PhaseReport& p : r->report.phases) by_name[p.spec->name] = &p;
  const PhaseReport& capped = *by_name["capped"];
  CHECK(seconds_of(capped) < 0.012);          // issued until 10 ms, completed soon after
  CHECK(capped.result.bytes[1] < 64 * kMiB);  // stopped by runtime first
  const PhaseReport& tb = *by_name["time_based"];
  CHECK(seconds_of(tb) == Approx(0.050).margin(0.001));
  CHECK(tb.result.bytes[0] > kMiB);  // wraps over its 1m range
  // The partner stream measures from its own start, 10 ms into the phase.
  const PhaseResult& tr = by_name["together"]->result;
  REQUIRE(tr.streams.size() == 2);
  CHECK(tr.streams[1].start - tr.streams[0].start == 10 * kMs);
  CHECK(to_seconds(tr.streams[1].end - tr.streams[1].start) == Approx(0.020).margin(0.001));
  // think: 400 IOs in bursts of 8, each followed by a 1 ms pause.
  const PhaseReport& think = *by_name["think"];
  CHECK(think.result.ios[0] == 400);
  CHECK(seconds_of(think) >= 0.049);
  CHECK(seconds_of(think) < 0.060);
}

// ---- random distributions --------------------------------------------------

namespace {

// Share of the IOs on the hottest `top` of the blocks.
double hottest_share(const std::vector<IoPattern::Io>& ios, std::uint64_t blocks, double top) {
  std::vector<std::uint64_t> n(blocks, 0);
  for (const auto& io : ios) ++n[io.offset / 4096];
  std::sort(n.rbegin(), n.rend());
  std::uint64_t hot = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(top * static_cast<double>(blocks)); ++i)
    hot += n[i];
  return share(hot, ios.size());
}

}  // namespace

TEST_CASE(
    "fio random_distribution: the random map, zipf, pareto, normal and zones put the documented "
    "shares where fio puts them") {
  const FioWorkload w = load("distributions.fio");
  const std::uint64_t blocks = 256 * kMiB / 4096;
  {
    const auto ios = draw(phase(w, "map"), blocks);
    std::set<std::uint64_t> seen;
    for (const auto& io : ios) seen.insert(io.offset);
    CHECK(seen.size() == blocks);
  }
  {
    // Without the map, draws repeat: about 1/e of the blocks stay untouched.
    const auto ios = draw(phase(w, "nomap"), blocks);
    std::set<std::uint64_t> seen;
    for (const auto& io : ios) seen.insert(io.offset);
    CHECK(1.0 - share(seen.size(), blocks) == Approx(std::exp(-1.0)).margin(0.01));
  }
  for (const char* skewed : {"zipf", "pareto", "normal", "zoned", "zoned_abs"})
    CHECK_FALSE(phase(w, skewed).random_map);  // fio: a skewed distribution implies norandommap
  {
    // zipf:1.2: the hottest 1% of the blocks take H(n/100, 1.2) / H(n, 1.2).
    double h_top = 0, h_all = 0;
    for (std::uint64_t i = 1; i <= blocks; ++i) {
      const double v = std::pow(static_cast<double>(i), -1.2);
      h_all += v;
      if (i <= blocks / 100) h_top += v;
    }
    CHECK(hottest_share(draw(phase(w, "zipf"), 200000), blocks, 0.01) ==
          Approx(h_top / h_all).margin(0.02));
  }
  {
    // The ranks themselves, through the permutation's inverse: pareto:0.2
    // puts 80% of the IOs on the lowest 20% of the ranks; normal:5 is a
    // standard deviation of 5% of the range around its middle.
    auto rank_shares = [&](const char* name, const std::vector<std::pair<double, double>>& bands) {
      const PhaseSpec& p = phase(w, name);
      const SkewedDraw d(p.distribution, blocks, p.seed ^ p.offset);
      std::vector<std::uint64_t> rank_of(blocks);
      for (std::uint64_t r = 0; r < blocks; ++r) rank_of[d.rank_to_position(r)] = r;
      Rng rng(5);
      std::vector<std::uint64_t> in(bands.size(), 0);
      const std::uint64_t n = 200000;
      for (std::uint64_t i = 0; i < n; ++i) {
        const double r = static_cast<double>(rank_of[d.next(rng)]) / static_cast<double>(blocks);
        for (std::size_t b = 0; b < bands.size(); ++b)
          in[b] += r >= bands[b].first && r < bands[b].second;
      }
      std::vector<double> v;
      for (const std::uint64_t x : in) v.push_back(share(x, n));
      return v;
    };
    CHECK(rank_shares("pareto", {{0, 0.2}})[0] == Approx(0.80).margin(0.01));
    const auto normal = rank_shares("normal", {{0.45, 0.55}, {0.40, 0.60}});
    CHECK(normal[0] == Approx(0.683).margin(0.01));
    CHECK(normal[1] == Approx(0.954).margin(0.01));
  }
  {
    // zoned:50/5:30/15:20/ over the range's first 5%, next 15%, rest.
    const auto ios = draw(phase(w, "zoned"), 100000);
    std::uint64_t z[3] = {};
    for (const auto& io : ios)
      ++z[io.offset < 256 * kMiB / 20 ? 0 : io.offset < 256 * kMiB / 5 ? 1 : 2];
    CHECK(share(z[0], ios.size()) == Approx(0.50).margin(0.01));
    CHECK(share(z[1], ios.size()) == Approx(0.30).margin(0.01));
    CHECK(share(z[2], ios.size()) == Approx(0.20).margin(0.01));
  }
  {
    const auto ios = draw(phase(w, "zoned_abs"), 100000);
    std::uint64_t first = 0;
    for (const auto& io : ios) {
      first += io.offset < 64 * kMiB;
      CHECK(io.offset < 256 * kMiB);
    }
    CHECK(share(first, ios.size()) == Approx(0.60).margin(0.01));
  }
}

// ---- concurrency, seeds, groups -------------------------------------------

TEST_CASE(
    "fio jobs between stonewalls run together: numjobs clones, own iodepths and seeds, new_group, "
    "group_reporting") {
  const std::string out = temp_dir("concurrency");
  const auto r = run_fio(source_path("tests/fio/concurrency.fio"), out);
  const FioWorkload& w = r->fio;
  REQUIRE(w.workload.phases.size() == 3);
  const PhaseSpec& p = w.workload.phases[0];
  REQUIRE(p.streams() == 4);  // a x2, b, c
  std::set<std::uint64_t> seeds;
  for (std::size_t k = 0; k < 4; ++k) seeds.insert(p.stream(k).seed);
  CHECK(seeds.size() == 4);
  CHECK(seeds.count(0) == 0);
  CHECK(w.workload.phases[1].seed == 0);  // alone: the workload's stream, as a YAML phase
  CHECK(w.workload.phases[2].seed != 0);  // its own randseed
  CHECK(w.jobs[0].groupid == 0);
  CHECK(w.jobs[1].groupid == 0);
  CHECK(w.jobs[2].groupid == 1);  // new_group
  CHECK(w.jobs[3].groupid == 2);  // stonewall

  const PhaseResult& res = r->report.phases[0].result;
  CHECK(res.peak_device_qd == 4 + 4 + 8 + 2);
  REQUIRE(res.streams.size() == 4);
  for (const StreamResult& s : res.streams) CHECK(s.ios[0] == 2000);
  CHECK(res.ios[0] == 8000);
  // Different seeds, different offsets: the clones do not read in lockstep.
  const auto a0 = draw(p.stream(0), 50), a1 = draw(p.stream(1), 50);
  int same = 0;
  for (std::size_t i = 0; i < 50; ++i) same += a0[i].offset == a1[i].offset;
  CHECK(same < 5);

  const Json j = fio_json(*r->drive.drive, w, r->report, FioOutputFormat::kJson);
  REQUIRE(j["jobs"].size() == 6);  // a, a, b, c, alone, seeded
  CHECK(j["jobs"][0]["jobname"] == "a");
  CHECK(j["jobs"][1]["jobname"] == "a");
  CHECK(j["jobs"][3]["groupid"] == 1);
  CHECK(j["jobs"][2]["read"]["total_ios"] == 2000);
  CHECK(j["jobs"][2]["latency_depth"] == 8);
  CHECK(j["jobs"][4]["read"]["total_ios"] == 500);

  // group_reporting merges a group's jobs into one entry.
  FioWorkload grouped = w;
  for (auto& job : grouped.jobs) job.group_reporting = true;
  const Json g = fio_json(*r->drive.drive, grouped, r->report, FioOutputFormat::kJson);
  REQUIRE(g["jobs"].size() == 4);  // group 0 (a, a, b), c, alone, seeded
  CHECK(g["jobs"][0]["read"]["total_ios"] == 6000);
}

// ---- rates, syncs, zones, iologs -------------------------------------------

TEST_CASE(
    "fio rate, rate_iops and rate_process: open-loop arrivals at the rate, evenly spaced or "
    "Poisson") {
  const std::string out = temp_dir("rate");
  const auto r = run_fio(source_path("tests/fio/rate.fio"), out);
  const FioWorkload& w = r->fio;
  CHECK(phase(w, "iops_linear").rate.arrival == Arrival::kUniform);
  CHECK(phase(w, "iops_poisson").rate.arrival == Arrival::kPoisson);
  CHECK(phase(w, "bytes").rate.iops == Approx(32.0 * kMiB / 65536));  // rate=,32m of 64k writes
  const auto& ph = r->report.phases;
  CHECK(ph[0].result.iops() == Approx(2000).epsilon(0.01));
  CHECK(ph[1].result.iops() == Approx(2000).epsilon(0.1));
  CHECK(static_cast<double>(ph[2].result.bytes[1]) / seconds_of(ph[2]) ==
        Approx(32.0 * kMiB).epsilon(0.01));
}

TEST_CASE("fio fsync, fdatasync and end_fsync are counted in fio.json's sync block") {
  const std::string out = temp_dir("sync");
  const auto r = run_fio(source_path("tests/fio/sync.fio"), out);
  const Json j = fio_json(*r->drive.drive, r->fio, r->report, FioOutputFormat::kJson);
  CHECK(j["jobs"][0]["write"]["total_ios"] == 1024);
  CHECK(j["jobs"][0]["sync"]["total_ios"] == 1024 / 8 + 1);  // + end_fsync
  CHECK(j["jobs"][1]["sync"]["total_ios"] == 1024 / 32);
  // Each a Flush command: a 4 KiB write's unit padded and programmed.
  CHECK(j["jobs"][1]["sync"]["lat_ns"]["N"] == 1024 / 32);
  CHECK(j["jobs"][1]["sync"]["lat_ns"]["min"].get<Tick>() >=
        r->drive.drive->timing.of(CellMode::kTlc).program_time(0));
}

namespace {

std::vector<std::string> declared(const std::string& path) {
  for (const FioBlockDoc& b : fio_blocks()) {
    if (b.path != path) continue;
    std::vector<std::string> names;
    for (const FioKeyDoc& k : b.keys) names.emplace_back(k.name);
    return names;
  }
  FAIL("no block " << path);
  return {};
}

std::vector<std::string> keys_of(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  return keys;
}

// A latency statistic leaves out what it has no data for: its keys are
// the declared ones in order, some perhaps missing.
bool in_declared_order(const std::vector<std::string>& keys, const std::vector<std::string>& all) {
  auto at = all.begin();
  for (const std::string& k : keys) {
    at = std::find(at, all.end(), k);
    if (at == all.end()) return false;
  }
  return true;
}

}  // namespace

TEST_CASE(
    "fio.json's keys are declared once, each with a unit and a description, and the output has "
    "exactly the declared keys in their order") {
  const std::vector<FioBlockDoc> blocks = fio_blocks();
  REQUIRE(blocks.size() >= 6);
  for (const FioBlockDoc& b : blocks) {
    INFO(b.path);
    CHECK(std::string(b.description).size() > 0);
    REQUIRE(!b.keys.empty());
    std::set<std::string> names;
    for (const FioKeyDoc& k : b.keys) {
      INFO(k.name);
      CHECK(std::string(k.unit).size() > 0);
      CHECK(std::string(k.description).size() > 0);
      CHECK(names.insert(k.name).second);
    }
  }

  // Mixed, trimmed, grouped and cloned jobs, lat_percentiles, json+ bins.
  const std::string out = temp_dir("declared");
  const auto r = run_fio(source_path("tests/fio/structure.fio"), out);
  const Json j = fio_json(*r->drive.drive, r->fio, r->report, FioOutputFormat::kJsonPlus);
  CHECK(keys_of(j) == declared("fio.json"));
  const std::vector<std::string> lat = declared(
      "fio.json jobs[].*.slat_ns|clat_ns|lat_ns, "
      "jobs[].sync.lat_ns");
  std::set<std::string> lat_seen;
  auto check_lat = [&](const Json& l) {
    CHECK(in_declared_order(keys_of(l), lat));
    for (const std::string& k : keys_of(l)) lat_seen.insert(k);
  };
  REQUIRE(j["jobs"].size() == 5);
  for (const Json& job : j["jobs"]) {
    CHECK(keys_of(job) == declared("fio.json jobs[]"));
    for (const char* dir : {"read", "write", "trim"}) {
      CHECK(keys_of(job[dir]) == declared("fio.json jobs[].read|write|trim"));
      for (const char* l : {"slat_ns", "clat_ns", "lat_ns"}) check_lat(job[dir][l]);
    }
    CHECK(keys_of(job["sync"]) == declared("fio.json jobs[].sync"));
    check_lat(job["sync"]["lat_ns"]);
  }
  CHECK(lat_seen == std::set<std::string>(lat.begin(), lat.end()));
  REQUIRE(j["disk_util"].size() == 1);
  CHECK(keys_of(j["disk_util"][0]) == declared("fio.json disk_util[]"));

  const Json file = fio_job_json(r->fio, "structure.fio");
  CHECK(keys_of(file) == declared("summary.json config.workload (a run of an fio job file)"));
  REQUIRE(file["jobs"].size() == 4);
  for (const Json& job : file["jobs"])
    CHECK(keys_of(job) == declared("summary.json config.workload.jobs[]"));
}

TEST_CASE(
    "fio zonemode=strided: zonesize bytes per zone, then zonerange + zoneskip further on, "
    "wrapping") {
  const FioWorkload w = load("zones.fio");
  const auto ios = draw(phase(w, "strided"), 32);
  const std::uint64_t k = 1024;
  const std::vector<std::uint64_t> pass = {0,      4 * k,  32 * k, 36 * k,
                                           64 * k, 68 * k, 96 * k, 100 * k};
  for (std::size_t i = 0; i < ios.size(); ++i) CHECK(ios[i].offset == pass[i % pass.size()]);
  // Random in a zone: zonerange defaults to zonesize; 16 IOs of 4k per zone.
  const auto rnd = draw(phase(w, "strided_random"), 64);
  for (std::size_t i = 0; i < rnd.size(); ++i) {
    const std::uint64_t zone = (i / 16) * 256 * k;
    CHECK(rnd[i].offset >= zone);
    CHECK(rnd[i].offset < zone + 64 * k);
  }
}

TEST_CASE(
    "fio write_iolog writes fio's v3 iolog of the IOs issued, read_iolog replays an iolog as a "
    "trace") {
  const std::string out = temp_dir("iolog");
  const auto r = run_fio(source_path("tests/fio/iolog.fio"), out);
  std::ifstream in(out + "/written.iolog");
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  CHECK(line == "fio version 3 iolog");
  const auto expect = draw(phase(r->fio, "written"), 100);
  std::size_t n = 0;
  std::string last;
  while (std::getline(in, line)) {
    last = line;
    std::istringstream ls(line);
    unsigned long long t = 0, off = 0, len = 0;
    std::string file, action;
    ls >> t >> file >> action;
    CHECK(file == "written");
    if (action != "write") continue;
    ls >> off >> len;
    REQUIRE(n < expect.size());
    CHECK(off == expect[n].offset);
    CHECK(len == expect[n].bytes);
    ++n;
  }
  CHECK(n == 100);
  CHECK(last.find(" written close") != std::string::npos);
  // The shipped v3 sample: 45 reads, 228 writes, 15 trims.
  const PhaseReport& rep = r->report.phases[1];
  REQUIRE(rep.trace);
  CHECK(rep.trace_read.records[0] + rep.trace_read.records[1] + rep.trace_read.records[2] == 288);
}

// ---- output ---------------------------------------------------------------

TEST_CASE(
    "fio logs: write_bw_log, write_iops_log and write_lat_log averaged per log_avg_msec in fio's "
    "CSV rows") {
  const std::string out = temp_dir("logs");
  const auto r = run_fio(source_path("tests/fio/logs.fio"), out);
  write_fio_results(out, *r->drive.drive, r->fio, r->report, FioOutputFormat::kJson);
  for (const char* f : {"logged_bw.1.log", "logged_iops.1.log", "logged_lat.1.log",
                        "logged_clat.1.log", "logged_slat.1.log", "fio.json"})
    CHECK(fs::exists(out + "/" + f));
  // A small consumer, as fio's plotting scripts read them: msec, value, ddir, bs, prio.
  auto rows = [&](const std::string& f) {
    std::vector<std::array<unsigned long long, 5>> v;
    std::ifstream in(out + "/" + f);
    std::string line;
    while (std::getline(in, line)) {
      std::array<unsigned long long, 5> a{};
      REQUIRE(std::sscanf(line.c_str(), "%llu, %llu, %llu, %llu, %llu", &a[0], &a[1], &a[2], &a[3],
                          &a[4]) == 5);
      v.push_back(a);
    }
    return v;
  };
  const auto bw = rows("logged_bw.1.log"), iops = rows("logged_iops.1.log"),
             lat = rows("logged_lat.1.log");
  REQUIRE(bw.size() == 6);  // 3 intervals of 100 ms, read and write
  REQUIRE(iops.size() == 6);
  for (std::size_t i = 0; i < bw.size(); ++i) {
    CHECK(bw[i][0] == 100 * (i / 2 + 1));
    CHECK(bw[i][2] == i % 2);
    CHECK(bw[i][1] == Approx(iops[i][1] * 4.0).epsilon(0.01));  // KiB/s of 4k IOs
  }
  // The rows average to the job's mean latency (IOs weighted by the iops rows).
  const PhaseResult& res = r->report.phases[0].result;
  double sum = 0, ios = 0;
  for (std::size_t i = 0; i < lat.size(); ++i)
    if (lat[i][2] == 0) {
      sum += static_cast<double>(lat[i][1] * iops[i][1]);
      ios += static_cast<double>(iops[i][1]);
    }
  CHECK(sum / ios == Approx(res.latency[0].mean()).epsilon(0.05));
  const Json j = Json::parse(std::ifstream(out + "/fio.json"));
  CHECK(j["jobs"][0]["read"]["bw_samples"] == 3);
  CHECK(j["jobs"][0]["read"]["clat_ns"]["percentile"].contains("99.900000"));
  CHECK(j["disk_util"][0]["util"].get<double>() > 99.0);
}

namespace {

// Every key path of `fio`'s output is in `ours` with a value of the same
// JSON type (integers of either sign alike); `ours` may add only the
// top-level keys in `extra`. Keyed maps whose keys are values ("bins") are
// compared by the types of their values.
void same_structure(const Json& fio, const Json& ours, const std::string& path,
                    std::vector<std::string>& diffs) {
  auto kind = [](const Json& v) {
    if (v.is_number_float()) return std::string("float");
    if (v.is_number()) return std::string("int");
    return std::string(v.type_name());
  };
  if (kind(fio) != kind(ours)) {
    diffs.push_back(path + ": fio has " + kind(fio) + ", ssdtwin " + kind(ours));
    return;
  }
  if (fio.is_object()) {
    const bool by_value = path.size() >= 5 && path.compare(path.size() - 5, 5, ".bins") == 0;
    if (by_value) {
      const std::string want = fio.empty() ? "" : kind(fio.begin().value());
      for (const auto& [k, v] : ours.items())
        if (!want.empty() && kind(v) != want) diffs.push_back(path + "." + k + ": not " + want);
      return;
    }
    for (const auto& [k, v] : fio.items()) {
      if (!ours.contains(k))
        diffs.push_back(path + "." + k + ": missing");
      else
        same_structure(v, ours[k], path + "." + k, diffs);
    }
    for (const auto& [k, v] : ours.items())
      if (!fio.contains(k) && !(path.empty() && k == "disk_util"))
        diffs.push_back(path + "." + k + ": not in fio's");
  } else if (fio.is_array()) {
    if (fio.size() != ours.size())
      diffs.push_back(path + ": " + std::to_string(fio.size()) + " elements in fio's, " +
                      std::to_string(ours.size()) + " here");
    for (std::size_t i = 0; i < std::min(fio.size(), ours.size()); ++i)
      same_structure(fio[i], ours[i], path + "[" + std::to_string(i) + "]", diffs);
  }
}

bool have_fio() { return std::system("fio --version > /dev/null 2>&1") == 0; }

}  // namespace

// The two tests below run the fio binary: hidden from the per-case
// registration ([.]) and run by the CTest test fio_against_real_fio, which
// reports them skipped where fio is not installed (tests/CMakeLists.txt).
TEST_CASE(
    "fio.json has real fio's structure: the same keys at the same paths with the same value types "
    "(json and json+)",
    "[.][fio]") {
  REQUIRE(have_fio());
  const std::string job = source_path("tests/fio/structure.fio");
  const std::string out = temp_dir("structure");
  const auto r = run_fio(job, out);
  for (const auto& [format, flag] : {std::pair{FioOutputFormat::kJson, "json"},
                                     std::pair{FioOutputFormat::kJsonPlus, "json+"}}) {
    // Real fio, ioengine=null (the job file's): no device needed.
    const std::string fio_out = out + "/real_" + flag + ".json";
    const std::string cmd = "cd " + out + " && fio --output-format=" + flag +
                            " --output=" + fio_out + " " + job + " > /dev/null 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const Json real = Json::parse(std::ifstream(fio_out));
    const Json ours = fio_json(*r->drive.drive, r->fio, r->report, format);
    std::vector<std::string> diffs;
    same_structure(real, ours, "", diffs);
    INFO(flag);
    for (const auto& d : diffs) INFO(d);
    CHECK(diffs.empty());
    CHECK(ours["jobs"].size() == 5);
  }
}

TEST_CASE("fio's own fio2gnuplot reads the bandwidth logs written and draws them", "[.][fio]") {
  REQUIRE(have_fio());
  const std::string out = temp_dir("fio2gnuplot");
  const auto r = run_fio(source_path("tests/fio/logs.fio"), out);
  write_fio_results(out, *r->drive.drive, r->fio, r->report, FioOutputFormat::kJson);
  const std::string cmd = "cd " + out + " && fio2gnuplot -p '*_bw.*.log' -g > fio2gnuplot.txt 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK_THAT(read_text_file(out + "/fio2gnuplot.txt"), Contains("logged_bw.1.log"));
  REQUIRE(fs::exists(out + "/logged_bw.1-2Draw.png"));
  CHECK(fs::file_size(out + "/logged_bw.1-2Draw.png") > 1000);
}

TEST_CASE("fio --parse-only accepts every job file of tests/fio and configs/fio", "[.][fio]") {
  REQUIRE(have_fio());
  std::vector<std::string> files;
  for (const char* dir : {"tests/fio", "configs/fio"})
    for (const auto& e : fs::directory_iterator(source_path(dir)))
      if (e.path().extension() == ".fio") files.push_back(e.path().string());
  REQUIRE(files.size() >= 25);
  for (const std::string& f : files) {
    INFO(f);
    const std::string cmd = "cd " + fs::path(f).parent_path().string() +
                            " && SSDTWIN_FIO_TEST_BS=4k fio --parse-only " + f +
                            " > /dev/null 2>&1";
    CHECK(std::system(cmd.c_str()) == 0);
  }
}

// ---- review procedures: the fio versions give the YAML versions' figures ----

namespace {

// metrics.csv as phase -> metric -> value.
std::map<std::string, std::map<std::string, std::string>> metrics_of(const std::string& dir) {
  std::ifstream in(dir + "/metrics.csv");
  std::string line;
  std::getline(in, line);  // units
  std::getline(in, line);
  auto split_csv = [](const std::string& s) {
    std::vector<std::string> v;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, ',')) v.push_back(x);
    if (!s.empty() && s.back() == ',') v.emplace_back();
    return v;
  };
  const auto header = split_csv(line);
  std::map<std::string, std::map<std::string, std::string>> m;
  while (std::getline(in, line)) {
    const auto row = split_csv(line);
    for (std::size_t i = 1; i < row.size() && i < header.size(); ++i) m[row[0]][header[i]] = row[i];
  }
  return m;
}

}  // namespace

TEST_CASE(
    "configs/fio: each review procedure's fio version gives the figures of its YAML version "
    "(scaled-down drive)",
    "[slow]") {
  // The reference SN500 scaled as the regression suite scales it (8 GB user);
  // runtimes cut by the same edit on both sides.
  const std::vector<std::string> scale = {
      "drive.nand.dies_per_channel=1", "drive.user_capacity=8GB", "drive.nand.pages_per_block=192",
      "drive.nand.blocks_per_plane=400", "drive.ftl.slc_cache.static=512MB"};
  struct Case {
    const char* name;
    std::vector<std::pair<std::string, std::string>> yaml_edits, fio_edits;
  };
  const std::vector<Case> cases = {
      {"sequential_read", {}, {}},
      {"random_read_qd1",
       {{"runtime: 2s", "runtime: 200ms"}},
       {{"runtime=2\n", "runtime=200ms\n"}}},
      {"atto", {}, {}},
      {"whole_drive_fill", {}, {}},
      {"seq_write_2x", {}, {}},
      {"qd_sweep_fob",
       {{"runtime: 5s", "runtime: 20ms"}, {"ramp_time: 1s", "ramp_time: 5ms"}},
       {{"runtime=5\n", "runtime=20ms\n"}, {"ramp_time=1\n", "ramp_time=5ms\n"}}},
      {"consistency",
       {{"runtime: 3600s", "runtime: 300ms"}, {"score_last: 400s", "score_last: 100ms"}},
       {{"runtime=3600\n", "runtime=300ms\n"}}},
      {"consistency_fill75",
       {{"runtime: 2000s", "runtime: 300ms"}},
       {{"runtime=2000\n", "runtime=300ms\n"}}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string dir = temp_dir(std::string("procedure_") + c.name);
    std::string yaml =
        read_text_file(source_path(std::string("configs/workloads/") + c.name + ".yaml"));
    std::string job = read_text_file(source_path(std::string("configs/fio/") + c.name + ".fio"));
    auto edit = [](std::string& s, const std::vector<std::pair<std::string, std::string>>& edits) {
      for (const auto& [from, to] : edits) s = std::regex_replace(s, std::regex(from), to);
    };
    edit(yaml, c.yaml_edits);
    edit(job, c.fio_edits);
    std::ofstream(dir + "/job.fio") << job;
    {
      TestDrive d = make_drive("configs/drives/wd_sn500_250gb.yaml", scale);
      run_into_folder(d, yaml.substr(yaml.find("workload:")), dir + "/yaml");
    }
    {
      TestDrive d = make_drive("configs/drives/wd_sn500_250gb.yaml", scale);
      const FioWorkload w =
          load_fio_workload(dir + "/job.fio", d.drive->user_bytes(), dir + "/fio", test_env);
      const RunReport rep = run_quiet(*d.drive, w.workload);
      RunMeta meta;
      meta.drive_resolved_json = d.doc->resolved_json();
      meta.workload_resolved_json = fio_job_json(w, dir + "/job.fio").dump();
      write_results(dir + "/fio", *d.drive, w.workload, rep, meta);
    }
    const auto y = metrics_of(dir + "/yaml"), f = metrics_of(dir + "/fio");
    REQUIRE(y.size() == f.size());
    std::size_t compared = 0;
    for (const auto& [ph, row] : y) {
      REQUIRE(f.count(ph));
      for (const auto& [metric, value] : row) {
        // Wall times differ run to run; a YAML `report:` block (a
        // consistency score) has no fio counterpart and is empty there.
        if (metric.find("wall") != std::string::npos || f.at(ph).at(metric).empty()) continue;
        INFO(ph << " " << metric);
        CHECK(f.at(ph).at(metric) == value);
        ++compared;
      }
    }
    CHECK(compared > 50 * y.size());
  }
}

// ---- the same keys in YAML workloads ---------------------------------------

TEST_CASE(
    "YAML workloads take fio's keys too: random_distribution, random_map, blockalign, thinktime, "
    "numjobs, offset_increment") {
  TestDrive d = make_drive(kTlc);
  const std::uint64_t user = d.drive->user_bytes();
  const WorkloadSpec w = make_workload(R"(
workload:
  phases:
    - {name: hot, rw: randread, bs: 4KiB, size: 256MiB, number_ios: 20000, random_distribution: "zoned_abs:90/16MiB:10/240MiB"}
    - {name: once, rw: randwrite, bs: 4KiB, size: 64MiB, io_size: 64MiB, random_map: true}
    - {name: grid, rw: randread, bs: 16KiB, blockalign: 4KiB, size: 64MiB, number_ios: 1000}
    - {name: clones, rw: randread, bs: 4KiB, iodepth: 4, size: 64MiB, numjobs: 3, offset_increment: 128MiB, number_ios: 500}
    - {name: think, rw: randread, bs: 4KiB, number_ios: 64, thinktime: 1ms, thinktime_blocks: 16}
)",
                                       user);
  const PhaseSpec& hot = w.phases[0];
  CHECK(hot.distribution.kind == RandomDist::kZoned);
  CHECK(hot.distribution.zones[0].bytes == 16 * kMiB);
  std::uint64_t in_hot = 0;
  for (const auto& io : draw(hot, 20000)) in_hot += io.offset < 16 * kMiB;
  CHECK(share(in_hot, 20000) == Approx(0.9).margin(0.01));
  std::set<std::uint64_t> seen;
  for (const auto& io : draw(w.phases[1], 64 * kMiB / 4096)) seen.insert(io.offset);
  CHECK(seen.size() == 64 * kMiB / 4096);
  CHECK(w.phases[2].block_align == 4096);
  const PhaseSpec& clones = w.phases[3];
  REQUIRE(clones.streams() == 3);
  CHECK(clones.stream(2).offset == 256 * kMiB);
  CHECK(clones.stream(1).seed != clones.stream(2).seed);
  CHECK(clones.stream(2).ios == 500);
  const RunReport r = run_quiet(*d.drive, w);
  CHECK(r.phases[3].result.ios[0] == 1500);
  CHECK(r.phases[3].result.peak_device_qd == 12);
  CHECK(seconds_of(r.phases[4]) >= 0.003);  // 64 IOs: 3 pauses of 1 ms between bursts of 16

  auto error = [&](const std::string& yaml) {
    try {
      make_workload(yaml, user);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(error("workload:\n  phases:\n    - {rw: randread, number_ios: 1, random_distribution: "
                   "\"zipf:1\"}\n"),
             Contains("random_distribution") && Contains("theta"));
  CHECK_THAT(error("workload:\n  phases:\n    - {rw: randread, number_ios: 1, random_distribution: "
                   "zipf, random_map: true}\n"),
             Contains("random_map"));
  CHECK_THAT(error("workload:\n  phases:\n    - {rw: randread, number_ios: 1, numjobs: 2, "
                   "offset_increment: 900MB}\n"),
             Contains("offset_increment"));
  CHECK_THAT(
      error("workload:\n  phases:\n    - {rw: randread, number_ios: 1, norandommap: true}\n"),
      Contains("norandommap"));
}

TEST_CASE(
    "fio ioengine: a synchronous engine (psync, fio's default) caps the queue depth at 1, as fio "
    "does, others keep it") {
  const FioWorkload w = load_fio_workload(write_job("engines", R"([global]
iodepth=16
number_ios=10
[default]
[psync]
ioengine=psync
[libaio]
ioengine=libaio
[io_uring]
ioengine=io_uring
)"),
                                          kGiB, temp_dir("engines"), test_env);
  const PhaseSpec& p = w.workload.phases[0];
  REQUIRE(p.streams() == 4);
  CHECK(p.stream(0).iodepth == 1);
  CHECK(p.stream(1).iodepth == 1);
  CHECK(p.stream(2).iodepth == 16);
  CHECK(p.stream(3).iodepth == 16);
  REQUIRE(w.notes.size() == 2);
  CHECK_THAT(
      w.notes[0],
      Contains("[default]: synchronous ioengine psync (fio's default): queue depth capped at 1"));
  CHECK(w.ignored.empty());
}

TEST_CASE("fio output options: name, percentile_list, bwavgtime, nrfiles must be 1") {
  const std::string path = write_job("output", R"([global]
rw=randread
norandommap
bs=4k
size=64m
time_based
runtime=100ms
[section]
name=renamed
percentile_list=50:99.5
bwavgtime=25
)");
  const std::string out = temp_dir("output_opts");
  const auto r = run_fio(path, out);
  const Json j = fio_json(*r->drive.drive, r->fio, r->report, FioOutputFormat::kJson);
  CHECK(j["jobs"][0]["jobname"] == "renamed");
  const Json& pct = j["jobs"][0]["read"]["clat_ns"]["percentile"];
  REQUIRE(pct.size() == 2);
  CHECK(pct.contains("50.000000"));
  CHECK(pct.contains("99.500000"));
  CHECK(j["jobs"][0]["read"]["bw_samples"] == 4);  // 100 ms in samples of 25 ms
  CHECK(j["global options"]["runtime"] == "100ms");
  CHECK(j["jobs"][0]["job options"]["percentile_list"] == "50:99.5");
  CHECK_THAT(load_error("[a]\nnrfiles=2\n"), Contains("bad.fio:2: nrfiles=2: expected 1"));
}

// ---- issue 30: engines, steady state, size ----------------------------------

TEST_CASE(
    "fio ioengine: an engine the simulator does not know runs as the asynchronous ones, with a "
    "warning on the run's log naming them") {
  const std::string job = write_job("unknown_engine", R"([global]
ioengine=spdk_bdev
iodepth=8
number_ios=10
[one]
[two]
[known]
ioengine=io_uring
)");
  const FioWorkload w = load_fio_workload(job, kGiB, temp_dir("unknown_engine"), test_env);
  CHECK(w.workload.phases[0].stream(0).iodepth == 8);  // the depth holds, as an async engine's
  REQUIRE(w.warnings.size() == 1);                     // once for the [global] line, not per job
  // The log a run prints (warnings on stderr), from the binary itself.
  const std::string err = temp_dir("unknown_engine_log") + "/stderr.txt";
  const std::string cmd = std::string(SSDTWIN_BINARY) + " check --drive " + source_path(kTlc) +
                          " --fio " + job + " > /dev/null 2> " + err;
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string log = read_text_file(err);
  CHECK_THAT(log, Contains("[warning]"));
  CHECK_THAT(
      log, Contains("unknown_engine.fio:2: ioengine=spdk_bdev: not an engine the simulator knows"));
  CHECK_THAT(log,
             Contains("run as the asynchronous engines (libaio, io_uring, io_uring_cmd, posixaio"));
  CHECK_THAT(log,
             Contains("The synchronous ones (sync, psync, vsync, pvsync, pvsync2, mmap, splice)"));
  // Known engines, sync or async, warn of nothing.
  const FioWorkload known = load_fio_workload(
      write_job("known_engines",
                "[a]\nioengine=libaio\nnumber_ios=1\n[b]\nioengine=pvsync2\nnumber_ios=1\n"),
      kGiB, temp_dir("known_engines"), test_env);
  CHECK(known.warnings.empty());
}

TEST_CASE(
    "fio steadystate, ss_dur and ss_ramp map onto until_steady: rounds of fio's 1 s samples, one "
    "condition per criterion, forms the model cannot judge are errors") {
  const FioWorkload w = load_fio_workload(write_job("steady", R"([global]
rw=randread
norandommap
time_based
runtime=60
[iops]
steadystate=iops:2%
ss_dur=30
ss_ramp=10
stonewall
[slope]
ss=iops_slope:0.5%
steadystate_duration=20s
stonewall
[bw]
steadystate=bw:3%
ss_dur=10
stonewall
[default]
ss_dur=5
stonewall
[off]
steadystate=iops:2%
stonewall
)"),
                                          kGiB, temp_dir("steady"), test_env);
  const UntilSteady& iops = phase(w, "iops").until_steady;
  CHECK(iops.round == 1_s);
  CHECK(iops.rounds == 30u);
  CHECK(iops.tolerance == Approx(0.02));
  CHECK(std::isinf(iops.slope_tolerance));
  CHECK(iops.after == 40_s);  // fio's first window: after ss_ramp, ss_dur long
  const UntilSteady& slope = phase(w, "slope").until_steady;
  CHECK(slope.rounds == 20u);
  CHECK(std::isinf(slope.tolerance));
  // fio bounds the slope per sample; the model bounds the line's change
  // across the window's 20 samples (19 steps).
  CHECK(slope.slope_tolerance == Approx(0.005 * 19));
  CHECK(slope.after == 20_s);
  CHECK(phase(w, "bw").until_steady.tolerance == Approx(0.03));  // one block size: bw is IOPS x bs
  const UntilSteady& def = phase(w, "default").until_steady;     // fio's default iops_slope:0.01%
  CHECK(def.slope_tolerance == Approx(0.0001 * 4));
  CHECK(phase(w, "off").until_steady.round == 0);  // no ss_dur: fio judges nothing
  CHECK_THAT(w.notes.back(), Contains("[off]: steadystate without ss_dur"));

  CHECK_THAT(load_error("[a]\nsteadystate=iops:200\nss_dur=10\n"),
             Contains("bad.fio:2: steadystate=iops:200: expected a limit in percent of the mean"));
  CHECK_THAT(load_error("[a]\nsteadystate=lat:2%\nss_dur=10\n"),
             Contains("expected iops:, iops_slope:, bw: or bw_slope:"));
  CHECK_THAT(load_error("[a]\nss_dur=1500ms\n"),
             Contains("bad.fio:2: ss_dur=1500ms: expected a whole number of seconds, at least 2"));
  CHECK_THAT(
      load_error("[a]\nrw=randwrite\nbssplit=4k/50:64k/50\nsteadystate=bw_slope:1%\nss_dur=10\n"),
      Contains("bandwidth criteria with mixed block sizes"));
  CHECK_THAT(load_error("[a]\nrw=randread\nrate_iops=100\nss_dur=10\n"),
             Contains("expected no steady-state stop with rate"));
  // Jobs that run together are judged together: with group_reporting and
  // the same rule, or not at all.
  CHECK_THAT(
      load_error("[a]\nrw=randread\nnumjobs=2\nss_dur=10\n"),
      Contains("bad.fio:1: [a]: steadystate: the simulator judges steady state over all the jobs"));
  CHECK_THAT(load_error("[global]\ngroup_reporting\n[a]\nss_dur=10\n[b]\nss_dur=20\n"),
             Contains("[b]: steadystate: the simulator judges"));
  const FioWorkload grouped = load_fio_workload(
      write_job("steady_group",
                "[global]\ngroup_reporting\nrw=randread\nss_dur=10\n[a]\nnumjobs=2\n[b]\n"),
      kGiB, temp_dir("steady_group"), test_env);
  CHECK(grouped.workload.phases[0].until_steady.rounds == 10u);
}

TEST_CASE(
    "a fio job with steadystate stops once its IOPS samples pass fio's test, before its runtime") {
  const std::string out = temp_dir("steady_run");
  const auto r = run_fio(write_job("steady_run", R"([steady]
rw=randread
bs=4k
iodepth=4
norandommap
time_based
runtime=30
steadystate=iops:5%
ss_dur=3
)"),
                         out);
  const PhaseReport& p = r->report.phases.at(0);
  REQUIRE(p.result.steady);
  const SteadyStateMonitor& m = *p.result.steady;
  REQUIRE(m.steady());
  CHECK(m.window() == 3u);
  // The window that stopped it: each sample within 5% of its mean.
  const std::vector<double>& rounds = m.rounds();
  const double mean =
      (rounds[rounds.size() - 1] + rounds[rounds.size() - 2] + rounds[rounds.size() - 3]) / 3;
  for (std::size_t k = rounds.size() - 3; k < rounds.size(); ++k)
    CHECK(std::fabs(rounds[k] - mean) <= 0.05 * mean);
  CHECK(to_seconds(p.result.end - p.result.start) < 30.0);
  CHECK(to_seconds(p.result.end - p.result.start) >= 3.0);
}

TEST_CASE(
    "a fio job bounded by size moves exactly size: a random job over a range that is not a whole "
    "number of its blocks, and mixed block sizes, end on a partial last IO") {
  const std::string out = temp_dir("exact_size");
  const auto r = run_fio(write_job("exact_size", R"([global]
size=8196k
stonewall
[random_map]
rw=randwrite
bs=64k
iodepth=8
[norandommap]
rw=randwrite
bs=64k
norandommap
[bssplit]
rw=randwrite
bssplit=4k/50:64k/25:1m/
norandommap
[sequential]
rw=write
bs=64k
[io_size]
rw=randwrite
bs=128k
io_size=3000k
)"),
                         out);
  REQUIRE(r->report.phases.size() == 5);
  for (const PhaseReport& p : r->report.phases) {
    INFO(p.spec->name);
    const std::uint64_t want = p.spec->name == "io_size" ? 3000 * 1024 : 8196 * 1024;
    CHECK(p.result.bytes[static_cast<int>(IoOp::kWrite)] == want);
    // and the drive took exactly that
    CHECK((p.ftl_after.host_write_slots - p.ftl_before.host_write_slots) * kSectorBytes == want);
  }
}

TEST_CASE(
    "fio sync=1 runs FUA writes, fsync=N / fdatasync=N a Flush after every N writes, end_fsync one "
    "more at the end") {
  const FioWorkload w = load_fio_workload(write_job("durable", R"([global]
rw=randwrite
number_ios=16
[osync]
sync=1
[odsync]
sync=dsync
[fsync]
fsync=8
end_fsync=1
[fdatasync]
fdatasync=4
[both]
fsync=8
fdatasync=2
[plain]
sync=0
)"),
                                          kGiB, temp_dir("durable"), test_env);
  const PhaseSpec& p = w.workload.phases[0];
  REQUIRE(p.streams() == 6);
  CHECK(p.stream(0).fua);
  CHECK(p.stream(1).fua);
  CHECK_FALSE(p.stream(2).fua);
  CHECK(p.stream(2).flush_every == 8u);
  CHECK(p.stream(2).end_flush);
  CHECK(p.stream(3).flush_every == 4u);
  CHECK(p.stream(4).flush_every == 2u);  // the more frequent of the two
  CHECK_FALSE(p.stream(5).fua);
  CHECK(p.stream(5).flush_every == 0u);
  CHECK(std::find(w.ignored.begin(), w.ignored.end(), "sync") == w.ignored.end());
  CHECK_THAT(load_error("[a]\nsync=maybe\n"),
             Contains("bad.fio:2: sync=maybe: expected none, 0, sync, 1 or dsync"));
  CHECK_THAT(load_error("[a]\nrw=write\nrate_iops=100\nfsync=4\n"),
             Contains("bad.fio:4: fsync=4: expected no fsync/fdatasync with rate or rate_iops"));
}

TEST_CASE(
    "a SATA FLUSH CACHE is not queued: another job's writes wait behind it, where NVMe's Flush "
    "lets "
    "them by") {
  const std::string job = write_job("sata_flush", R"([global]
rw=randwrite
bs=4k
norandommap
ioengine=libaio
[flusher]
iodepth=1
number_ios=100
fsync=1
[writer]
iodepth=4
rate_iops=4000
time_based
runtime=100ms
)");
  Tick worst[2] = {};
  Tick program = 0;
  int k = 0;
  for (const char* drive : {kTlc, "configs/drives/test_mlc_sata.yaml"}) {
    TestDrive t = make_drive(drive);
    const FioWorkload w =
        load_fio_workload(job, t.drive->user_bytes(), temp_dir("sata_flush"), test_env);
    const RunReport r = run_quiet(*t.drive, w.workload);
    const PhaseResult& res = r.phases.at(0).result;
    REQUIRE(res.streams.size() == 2);
    REQUIRE(res.streams[0].syncs == 100);
    worst[k] = res.streams[1].latency[static_cast<int>(IoOp::kWrite)].max();
    // The SATA drive's fastest program (an MLC lower page).
    if (k == 1) program = t.drive->timing.of(CellMode::kMlc).program_time(0);
    ++k;
  }
  // NVMe: the writer's writes complete in the buffer, flushes or not.
  CHECK(worst[0] < 100_us);
  // SATA: some wait behind a flush, itself waiting for a program.
  CHECK(worst[1] >= program);
}
