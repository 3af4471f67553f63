// Read errors: ECC decode failures, read retry, RAIN rebuild of failed pages, read reclaim.
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ftl_test_support.h"
#include "nand/error_model.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

namespace {

// Pages whose every read is uncorrectable (RBER 1); all others read clean.
class FailingPages : public ErrorModel {
 public:
  explicit FailingPages(std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> pages)
      : pages_(std::move(pages)) {}
  double rber(const CellWear& w) const override {
    return pages_.count({w.die, w.block, w.page}) ? 1.0 : 0.0;
  }

 private:
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> pages_;
};

struct ErrorDrive {
  std::unique_ptr<ConfigDoc> doc;
  std::unique_ptr<Drive> drive;
};

ErrorDrive drive_with_errors(const std::vector<std::string>& sets,
                             std::unique_ptr<ErrorModel> model, bool verify = false) {
  ErrorDrive e;
  e.doc = ConfigDoc::load(source_path("configs/drives/test_mlc_sata.yaml"), "drive", sets);
  e.drive = std::make_unique<Drive>(e.doc->root(), verify, std::move(model));
  e.doc->check_unused();
  return e;
}

const char* kFillThenRead = R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 100%}
    - {name: read, rw: read, bs: 4KiB, iodepth: 1, size: 64MiB, io_size: 100%}
)";

}  // namespace

TEST_CASE("the decode fails with the Poisson tail of the codeword's bit errors", "[ftl][errors]") {
  auto t = make_drive("configs/drives/test_mlc_sata.yaml",
                      {"drive.controller.ecc={codeword: 1KiB, correctable_bits: 0}",
                       "drive.nand.errors={model: power_law, power_law: {epsilon: 1e-5}}"});
  const ReadRecoveryConfig& ecc = t.drive->ftl_cfg.recovery;
  // t = 0: a codeword fails on any error: 1 - exp(-8192 * rber); a 4 KiB
  // read has four codewords.
  CHECK(decode_fail_probability(ecc, 1e-5, 1024) == Approx(1 - std::exp(-8192 * 1e-5)));
  CHECK(decode_fail_probability(ecc, 1e-5, 4096) == Approx(1 - std::exp(-4 * 8192 * 1e-5)));
  CHECK(decode_fail_probability(ecc, 0, 4096) == 0);
}

TEST_CASE("a stronger code and a lower RBER fail less, far beyond the code all fail",
          "[ftl][errors]") {
  auto t = make_drive("configs/drives/test_mlc_sata.yaml",
                      {"drive.controller.ecc={codeword: 1KiB, correctable_bits: 40}",
                       "drive.nand.errors={model: power_law, power_law: {epsilon: 1e-5}}"});
  const ReadRecoveryConfig& ecc = t.drive->ftl_cfg.recovery;
  // 40 correctable bits in 8192: fine at 1e-3 (8 expected errors), hopeless at 1e-2 (82).
  CHECK(decode_fail_probability(ecc, 1e-3, 4096) < 1e-12);
  CHECK(decode_fail_probability(ecc, 3e-3, 4096) > decode_fail_probability(ecc, 2e-3, 4096));
  CHECK(decode_fail_probability(ecc, 1e-2, 4096) > 0.999999);
}

TEST_CASE("read retries raise read latency as the error model says, more at end of life",
          "[ftl][errors]") {
  // A worn part: RBER = 1e-4 + 1.2e-10 * N^2 (N P/E cycles); 40 bits per
  // KiB. Fresh, reads decode at once; at 3000 cycles (RBER 1.2e-3, 8.9
  // errors per codeword expected, 40 correctable) still; at 5000 (3.1e-3,
  // 25 expected) some codeword of a page now and then needs the retries,
  // each of which lowers the RBER.
  const std::vector<std::string> base = {
      "drive.controller.ecc={codeword: 1KiB, correctable_bits: 28, retry: [{rber_scale: 0.7}, "
      "{rber_scale: 0.5}, {rber_scale: 0.35, senses: 3}]}",
      "drive.nand.errors.model=power_law",
      "drive.nand.errors.power_law={epsilon: 1e-4, alpha: 1.2e-10, k: 2}"};
  auto run = [&](int pe_cycles) {
    auto sets = base;
    sets.push_back("drive.nand.errors.age.pe_cycles=" + std::to_string(pe_cycles));
    auto t = make_drive("configs/drives/test_mlc_sata.yaml", sets);
    const auto w = make_workload(kFillThenRead, t.drive->user_bytes());
    const RunReport rep = run_quiet(*t.drive, w);
    const auto& lat = rep.phases.back().result.latency[static_cast<int>(IoOp::kRead)];
    return std::make_tuple(lat.mean(), lat.percentile(0.999), t.drive->ftl->stats());
  };
  const auto [fresh_mean, fresh_p999, fresh] = run(0);
  const auto [eol_mean, eol_p999, eol] = run(5000);
  CHECK(fresh.reads_retried == 0);
  CHECK(eol.reads_retried > 0);
  CHECK(eol.reads_uncorrectable == 0);
  CHECK(eol_mean > fresh_mean);
  CHECK(eol_p999 > fresh_p999);
  // At QD1 on an idle die the extra time is the re-reads themselves: each
  // step costs its sensings' array time and data-out. Lower and upper pages
  // (40 and 60 us) are read equally often.
  auto t = make_drive("configs/drives/test_mlc_sata.yaml", base);
  const Drive& d = *t.drive;
  const double step_time =
      static_cast<double>(d.timing.t_cmd + 50 * kUs + d.timing.bus_time(kSectorBytes));
  const auto& steps = eol.retry_reads_by_step;
  const double expected_extra =
      (steps[1] + steps[2] + 3.0 * steps[3]) * step_time / static_cast<double>(eol.host_read_slots);
  CHECK(eol_mean - fresh_mean == Approx(expected_extra).epsilon(0.05));
}

TEST_CASE("one failed page per stripe is rebuilt from its stripe and rewritten",
          "[ftl][errors][rain]") {
  // Find where logical page 100 lands, then fail that page's every read.
  auto probe = drive_with_errors({"drive.ftl.rain.stripe=4"}, nullptr);
  run_quiet(*probe.drive, make_workload(kFillThenRead, probe.drive->user_bytes()));
  const auto [die, block, page] = where(*probe.drive, 100);

  auto e =
      drive_with_errors({"drive.ftl.rain.stripe=4"},
                        std::make_unique<FailingPages>(std::set{std::make_tuple(die, block, page)}),
                        /*verify=*/true);
  run_quiet(*e.drive, make_workload(kFillThenRead, e.drive->user_bytes()));
  const FtlStats& s = e.drive->ftl->stats();
  CHECK(s.reads_uncorrectable >= 1);
  CHECK(s.pages_rebuilt >= 1);
  CHECK(s.rain_member_reads >= 3 * s.pages_rebuilt);  // the other units of a 4-unit stripe
  CHECK(s.reads_lost == 0);
  CHECK(s.host_reads_failed == 0);
  CHECK(s.rewrite_slots > 0);
  CHECK(s.verify_errors == 0);
  // Rewritten: the logical page lives elsewhere now.
  CHECK(where(*e.drive, 100) != std::make_tuple(die, block, page));
}

TEST_CASE("two failed pages in one stripe are reported lost, never returned as good",
          "[ftl][errors][rain]") {
  auto probe = drive_with_errors({"drive.ftl.rain.stripe=4"}, nullptr);
  run_quiet(*probe.drive, make_workload(kFillThenRead, probe.drive->user_bytes()));
  const auto [die, block, page] = where(*probe.drive, 100);
  // The other data page in the same 4-unit stripe (MLC: one page per unit).
  const std::uint32_t first = page - page % 4;
  const std::uint32_t other = page == first ? first + 1 : first;

  auto e = drive_with_errors({"drive.ftl.rain.stripe=4"}, std::make_unique<FailingPages>(std::set{
                                                              std::make_tuple(die, block, page),
                                                              std::make_tuple(die, block, other)}));
  run_quiet(*e.drive, make_workload(kFillThenRead, e.drive->user_bytes()));
  const FtlStats& s = e.drive->ftl->stats();
  CHECK(s.reads_lost >= 1);
  CHECK(s.host_reads_failed >= 1);
  CHECK(s.pages_rebuilt == 0);

  // Without RAIN one failed page is already lost.
  auto plain = drive_with_errors(
      {}, std::make_unique<FailingPages>(std::set{std::make_tuple(die, block, page)}));
  run_quiet(*plain.drive, make_workload(kFillThenRead, plain.drive->user_bytes()));
  CHECK(plain.drive->ftl->stats().host_reads_failed >= 1);
  CHECK(plain.drive->ftl->stats().pages_rebuilt == 0);
}

TEST_CASE("a block read past the reclaim threshold is relocated", "[ftl][errors]") {
  auto t = make_drive("configs/drives/test_mlc_sata.yaml",
                      {"drive.nand.errors={model: power_law, power_law: {epsilon: 1e-6}}",
                       "drive.ftl.read_reclaim.reads=2000"},
                      /*verify=*/true);
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 8, size: 16MiB, io_size: 100%}
    - {name: hot, rw: randread, bs: 4KiB, iodepth: 4, size: 16MiB, io_size: 128MiB}
)",
                               t.drive->user_bytes());
  run_quiet(*t.drive, w);
  const FtlStats& s = t.drive->ftl->stats();
  CHECK(s.reclaim_blocks > 0);
  CHECK(s.gc_moved_slots > 0);
  CHECK(s.verify_errors == 0);
}
