// `ssdtwin compare`'s inputs: a baseline CSV and a run's metrics.csv, in one
// input split at its first line "=====" (baseline above, metrics below; no
// such line: the whole input is the baseline, checked against an empty run).
// Both parse as the CLI parses them, every baseline run name is checked
// against the one run, and the table is formatted. Beyond "no crash":
// --update's rewrite must parse again, with the same rows, each measured
// value now its expected value.
#include <map>
#include <string>
#include <string_view>

#include "app/compare.h"
#include "fuzz/fuzz_support.h"
#include "sim/config.h"

using namespace ssdtwin;

namespace {

constexpr std::string_view kSplit = "\n=====\n";

void check_update(const Baseline& baseline, const std::vector<Check>& checks) {
  const std::string text = updated_baseline_text(baseline, checks);
  Baseline again;
  try {
    again = parse_baseline(text, baseline.path);
  } catch (const CompareInputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    fuzz::finding("the updated baseline does not parse");
  }
  if (again.rows.size() != baseline.rows.size())
    fuzz::finding("the updated baseline has other rows");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const Check& c = checks[i];
    if (!c.measured) continue;
    const BaselineRow& row = again.rows[static_cast<std::size_t>(c.row - baseline.rows.data())];
    if (!row.expected || *row.expected != *c.measured)
      fuzz::finding("the updated baseline does not hold the measured value");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::text_of(data, size);
  const std::size_t split = text.find(kSplit);
  const std::string_view all(text);
  const std::string_view base_text = all.substr(0, split);
  const std::string_view metrics_text =
      split == std::string::npos ? std::string_view("phase\n") : all.substr(split + kSplit.size());
  try {
    const Baseline baseline = parse_baseline(base_text, "baseline.csv");
    const RunMetrics metrics = parse_metrics_csv(metrics_text, "run/metrics.csv");
    std::map<std::string, RunMetrics> runs;
    for (const BaselineRow& r : baseline.rows) runs.emplace(r.run, metrics);
    const std::vector<Check> checks = check_baseline(baseline, runs, false);
    format_table(checks, true);
    check_update(baseline, checks);
  } catch (const CompareInputError& e) {
    fuzz::expected(e);
  }
  return 0;
}
