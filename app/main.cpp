// ssdtwin: command-line front end.
//
//   ssdtwin run   --drive D.yaml --workload W.yaml --out DIR [--set k=v]... [--verify]
//   ssdtwin run   --drive D.yaml --fio JOB.fio --out DIR [--output-format json|json+]
//   ssdtwin check --drive D.yaml [--workload W.yaml] [--set k=v]...
//   ssdtwin policies
//   ssdtwin metrics
//   ssdtwin params [PREFIX] [--markdown]
//   ssdtwin sweep SWEEP.yaml --out DIR [-j N] [--backend local|slurm] | --collect DIR
//
// Exit status: 0 success, 2 bad input (config, workload, command line),
// 3 verification found data that did not read back, 1 anything else.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "app/compare.h"
#include "app/config_params.h"
#include "app/drive.h"
#include "app/fio_report.h"
#include "app/phase_metrics.h"
#include "app/report.h"
#include "app/run_inputs.h"
#include "app/runner.h"
#include "app/sweep.h"
#include "ftl/ftl_kinds.h"
#include "ftl/gc/gc_policy.h"
#include "ftl/mapping/map_cache.h"
#include "ftl/slc/slc_policy.h"
#include "host/arbitration.h"
#include "host/protocol.h"
#include "host/trace/trace_formats.h"
#include "host/workload/workload.h"
#include "nand/error_model.h"
#include "sim/chart.h"
#include "sim/config.h"
#include "sim/output_file.h"

namespace po = boost::program_options;
using namespace ssdtwin;

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitVerify = 3;

struct Args {
  std::string command;
  std::string drive, workload, out;
  std::string fio, output_format = "json";  // --fio: an fio job file instead of --workload
  std::vector<std::string> sets;
  bool verify = false;
  bool quiet = false;
  std::string prefix;          // params: list keys under this path
  bool markdown = false;       // params: docs/CONFIG.md
  std::string charts = "png";  // --charts: png, script or none (sim/chart.h)
  SnapshotOptions snapshot;    // --save-state, --load-state, --precondition-only
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Log lines split by level: information (what ran, where the results are)
// is the run's report on stdout; warnings go to stderr with every other
// diagnostic, so a script reading stdout never mistakes one for a result.
class SplitSink final : public spdlog::sinks::sink {
 public:
  void log(const spdlog::details::log_msg& msg) override {
    (msg.level >= spdlog::level::warn ? err_ : out_)->log(msg);
  }
  void flush() override {
    out_->flush();
    err_->flush();
  }
  void set_pattern(const std::string& pattern) override {
    out_->set_pattern(pattern);
    err_->set_pattern(pattern);
  }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    err_->set_formatter(formatter->clone());
    out_->set_formatter(std::move(formatter));
  }

 private:
  std::shared_ptr<spdlog::sinks::sink> out_ =
      std::make_shared<spdlog::sinks::stdout_color_sink_st>();
  std::shared_ptr<spdlog::sinks::sink> err_ =
      std::make_shared<spdlog::sinks::stderr_color_sink_st>();
};

void print_usage(const po::options_description& opts) {
  std::cout
      << "usage: ssdtwin run --drive D.yaml --workload W.yaml --out DIR [options]\n"
         "       ssdtwin run --drive D.yaml --fio JOB.fio --out DIR [--output-format json|json+]\n"
         "       ssdtwin check --drive D.yaml [--workload W.yaml] [--set k=v]...\n"
         "       ssdtwin compare --baseline FILE [--update] RUN_DIR...   (ssdtwin compare -h)\n"
         "       ssdtwin sweep SWEEP.yaml --out DIR [-j N] [--backend local|slurm]   (ssdtwin "
         "sweep -h)\n"
         "       ssdtwin sweep --collect DIR\n"
         "       ssdtwin policies\n"
         "       ssdtwin metrics\n"
         "       ssdtwin params [PREFIX] [--markdown]   (config keys: kind, default, range)\n\n"
      << opts << "\n";
}

int run(const Args& a) {
  const auto started = std::chrono::steady_clock::now();
  bool verify = a.verify;
  RunInputs in = read_drive(a.drive, a.sets, verify);
  const std::unique_ptr<ConfigDoc>& drive_doc = in.drive_doc;
  const std::unique_ptr<ConfigDoc>& wl_doc = in.workload_doc;
  std::unique_ptr<Drive>& drive = in.drive;
  WorkloadSpec& workload = in.workload;
  std::unique_ptr<FioWorkload> fio;
  const FioOutputFormat fio_format = parse_fio_output_format(a.output_format);
  if (!a.fio.empty()) {
    for (const auto& s : a.sets)
      if (s.rfind("workload.", 0) == 0)
        throw ConfigError("--set " + s +
                          ": an fio job file takes no workload overrides (use ${VAR} in it)");
    fio = std::make_unique<FioWorkload>(load_fio_workload(
        a.fio, drive->user_bytes(), a.out, process_env, drive->namespaces.bytes_by_id()));
    workload = fio->workload;
    if (!fio->ignored.empty()) {
      std::string list;
      for (const auto& o : fio->ignored) list += (list.empty() ? "" : ", ") + o;
      spdlog::info("{}: host-only options ignored: {}", a.fio, list);
    }
    for (const auto& note : fio->notes) spdlog::info("{}: {}", a.fio, note);
    for (const auto& warning : fio->warnings) spdlog::warn("{}", warning);
  } else if (!a.workload.empty()) {
    read_workload(in, a.workload, a.sets);
  }
  check_run_inputs(in, a.sets);
  if ((!workload.power_cuts.empty() || !workload.power_cuts_after_ios.empty()) && !verify) {
    // Power cuts are checked against every accepted write: the sequence
    // numbers the out-of-band areas carry live in verification mode.
    spdlog::info("power cuts in the workload: verification mode on");
    verify = true;
    drive = std::make_unique<Drive>(drive_doc->root(), verify);
  }
  if (a.command == "check") {
    // Every trace a phase replays, read through once (streamed): its first
    // bad line, IO past the end of this drive, or a replay of nothing.
    for (const PhaseSpec& p : workload.phases) {
      if (p.rw != RwKind::kTrace) continue;
      const TraceStats t = check_trace_phase(p.trace, p.name, drive->user_bytes());
      std::printf("%s: phase '%s': %s ok (%llu lines, %llu records)\n", a.workload.c_str(),
                  p.name.c_str(), p.trace.file.c_str(), static_cast<unsigned long long>(t.lines),
                  static_cast<unsigned long long>(t.total_records()));
    }
    if (fio)
      std::printf("%s: ok (%zu jobs in %zu phases)\n", a.fio.c_str(), fio->jobs.size(),
                  workload.phases.size());
    std::printf("%s: ok (%s, %.1f GB user, %.1f GiB raw)\n", a.drive.c_str(), drive->name.c_str(),
                static_cast<double>(drive->user_bytes()) / 1e9,
                static_cast<double>(drive->geo.raw_bytes()) / (1ull << 30));
    return 0;
  }
  // Before the simulation, so that hours of it are not lost to a folder
  // that cannot take the results.
  prepare_output_folder(a.out);
  spdlog::info("{}: {} ({} dies, {:.1f} GB user) under '{}'", a.drive, drive->name,
               drive->geo.dies(), static_cast<double>(drive->user_bytes()) / 1e9, workload.name);
  RunOptions opt;
  opt.progress = !a.quiet;
  opt.snapshot = a.snapshot;
  opt.snapshot.drive_json = drive_doc->resolved_json();
  const std::string workload_json =
      fio ? fio_job_json(*fio, a.fio).dump() : wl_doc->resolved_json();
  opt.snapshot.workload_json = workload_json;
  if (fio) prepare_fio_outputs(*fio);
  const RunReport report = run_with_faults(
      drive, [&] { return std::make_unique<Drive>(drive_doc->root(), verify); }, workload, opt);
  for (const PowerCutReport& c : report.power_cuts)
    spdlog::info(
        "power cut at {:.3f} s in '{}': {} accepted pages lost ({} held volatile by the "
        "model, {} on failed flash){}, recovery {:.3f} s",
        to_seconds(c.at), c.phase, c.recovery.lost_pages, c.account.volatile_pages,
        c.account.failed_pages, c.account.protected_cut ? ", PLP flush held" : "",
        to_seconds(c.recovery.recovery_time));
  RunMeta meta;
  meta.build_seconds = in.build_seconds;
  meta.started = started;
  meta.drive_file = a.drive;
  meta.workload_file = fio ? a.fio : a.workload;
  meta.drive_resolved_json = drive_doc->resolved_json();
  meta.workload_resolved_json = workload_json;
  meta.overrides = a.sets;
  meta.verify = verify;
  meta.charts = *chart_output_named(a.charts);
  const auto write_start = std::chrono::steady_clock::now();
  if (fio)
    write_fio_results(a.out, *drive, *fio, report, fio_format);  // before summary.json, the last
  write_results(a.out, *drive, workload, report, meta);
  const double write_seconds = seconds_since(write_start);
  if (!report.failure.empty()) {
    spdlog::error("the drive stopped before the workload ended: {}; results up to then in {}",
                  report.failure, a.out);
    return 1;
  }
  if (report.power_cuts_missed > 0) {
    // A cut that never came would pass for one the drive survived.
    const bool by_time = !workload.power_cuts.empty();
    const std::size_t listed = workload.power_cuts.size() + workload.power_cuts_after_ios.size();
    std::string end;
    if (by_time) {
      Tick down = 0;
      for (const PowerCutReport& c : report.power_cuts) down += c.recovery.recovery_time;
      end = "at " + std::to_string(to_seconds(report.sim_end - down)) + " s of powered time";
    } else {
      std::uint64_t ios = 0;
      for (const PhaseReport& p : report.phases)
        for (int op = 0; op < PhaseResult::kOps; ++op) ios += p.result.ios[op];
      end = "after " + std::to_string(ios) + " host IOs";
    }
    std::fprintf(stderr,
                 "%s: faults.%s: %zu of the %zu power cuts listed never came: the workload ended "
                 "first (%s); list cuts within its span (results up to its end in %s)\n",
                 a.workload.c_str(), by_time ? "power_cuts" : "power_cuts_after_ios",
                 report.power_cuts_missed, listed, end.c_str(), a.out.c_str());
    return kExitBadInput;
  }
  spdlog::info(
      "results in {} (wall {:.1f} s: build {:.1f} s, simulate {:.1f} s, write {:.1f} s; {} events)",
      a.out, seconds_since(started), in.build_seconds, report.wall_seconds, write_seconds,
      report.events);
  for (const PhaseReport& p : report.phases) {
    if (!p.trace) continue;
    const TraceStats& t = p.trace_read;
    const TraceReplayStats& r = *p.trace;
    spdlog::info(
        "phase '{}': {} trace records ({}), {} commands and {} flushes, {} split, {} partial-page "
        "writes",
        p.spec->name, t.total_records(), p.trace_format,
        r.commands[0] + r.commands[1] + r.commands[2], r.flushes, r.split_records,
        r.partial_page_writes);
    if (t.bad_lines() > 0)
      spdlog::warn(
          "phase '{}': skipped {} bad lines ({} malformed, {} zero-length, {} unknown op); first: "
          "{}",
          p.spec->name, t.bad_lines(), t.bad[0], t.bad[1], t.bad[2], t.first_bad);
  }
  const VerifySummary v = verify_summary(*drive, report);
  if (!verify && v.reads_failed > 0)
    spdlog::warn(
        "{} host reads failed: data lost (failed flash); ftl.reliability.host_reads_failed per "
        "phase",
        v.reads_failed);
  if (verify) {
    if (!v.passed()) {
      std::fprintf(
          stderr,
          "ssdtwin: verification failed: %llu of %llu checks returned wrong data; %llu pages "
          "lost to power cuts where the model allows %llu; %llu host reads failed (data lost)\n",
          static_cast<unsigned long long>(v.wrong_data), static_cast<unsigned long long>(v.checks),
          static_cast<unsigned long long>(v.cut_pages_lost),
          static_cast<unsigned long long>(v.cut_loss_allowed),
          static_cast<unsigned long long>(v.reads_failed));
      return kExitVerify;
    }
    // A failed read is the drive reporting lost data, not returning wrong
    // data: verification passes, but the loss is never silent.
    if (v.reads_failed > 0)
      spdlog::warn(
          "verification: {} checks, no wrong data; {} host reads failed: data lost (failed flash)",
          v.checks, v.reads_failed);
    else
      spdlog::info("verification: {} checks, no wrong data, no reads failed", v.checks);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "compare") return compare_main(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "sweep") return sweep_main(argc - 1, argv + 1);
  Args a;
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")("drive,d", po::value(&a.drive),
                                                 "drive config (configs/drives/*.yaml)")(
      "workload,w", po::value(&a.workload), "workload file (configs/workloads/*.yaml)")(
      "fio", po::value(&a.fio), "an fio job file to run instead of --workload (docs/FIO.md)")(
      "output-format", po::value(&a.output_format),
      "with --fio: fio.json as fio's json (default) or json+ (with latency bins)")(
      "out,o", po::value(&a.out), "output folder for results")(
      "charts", po::value(&a.charts),
      "run: png (default: gnuplot scripts and their PNGs), script (the scripts alone: "
      "`gnuplot FILE.gp` draws one later) or none")(
      "set,s", po::value(&a.sets)->composing(),
      "override a config value: drive.a.b=value or workload.a.b=value (repeatable)")(
      "verify", po::bool_switch(&a.verify), "check that every read returns the latest write")(
      "quiet,q", po::bool_switch(&a.quiet), "no progress lines")(
      "markdown", po::bool_switch(&a.markdown), "params: print docs/CONFIG.md")(
      "save-state", po::value(&a.snapshot.save),
      "run: write the drive's state after the preconditioning phases to FILE")(
      "load-state", po::value(&a.snapshot.load),
      "run: start from the state in FILE, skipping the preconditioning phases")(
      "precondition-only", po::bool_switch(&a.snapshot.stop),
      "run: stop once --save-state is written");
  po::options_description hidden;
  hidden.add_options()("command", po::value(&a.command))("prefix", po::value(&a.prefix));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("command", 1).add("prefix", 1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help") || a.command.empty()) {
      print_usage(opts);
      return a.command.empty() && !vm.count("help") ? kExitBadInput : 0;
    }
    if (a.command == "params") {
      if (a.markdown) {
        std::fputs(config_markdown().c_str(), stdout);
        return 0;
      }
      const std::string listing = params_listing(config_sections(), a.prefix);
      if (listing.empty()) {
        std::fprintf(stderr, "ssdtwin params: no config key starts with '%s'\n", a.prefix.c_str());
        return kExitBadInput;
      }
      std::fputs(listing.c_str(), stdout);
      return 0;
    }
    if (a.command == "metrics") {
      print_metrics(stdout);
      return 0;
    }
    if (a.command == "policies") {
      for (const auto& p : ftl_kinds()) std::printf("ftl.kind %-19s %s\n", p.name, p.description);
      for (const auto& p : gc_policies())
        std::printf("ftl.gc.policy %-14s %s\n", p.name, p.description);
      for (const auto& p : map_evictions())
        std::printf("ftl.map_cache.policy %-7s %s\n", p.name, p.description);
      for (const auto& p : slc_policies())
        std::printf("ftl.slc_cache.policy %-10s %s\n", p.name, p.description);
      std::printf("nand.errors.model %-13s %s\n", "none", "reads never see bit errors (default)");
      for (const auto& p : error_models())
        std::printf("nand.errors.model %-13s %s\n", p.name, p.description);
      for (const auto& p : host_protocols())
        std::printf("host.interface %-16s %s\n", p.name, p.description);
      for (const auto& p : arbiters())
        std::printf("host.nvme.arbitration %-9s %s\n", p.name, p.description);
      for (const auto& f : trace_formats())
        std::printf("trace.format %-17s %s\n", f.name, f.columns);
      return 0;
    }
    if (a.command != "run" && a.command != "check") {
      std::fprintf(stderr,
                   "ssdtwin: unknown command '%s' (run, check, policies, metrics, params)\n",
                   a.command.c_str());
      return kExitBadInput;
    }
    if (a.drive.empty()) throw po::error("--drive is required");
    if (a.command == "run" && ((a.workload.empty() && a.fio.empty()) || a.out.empty()))
      throw po::error("run needs --workload (or --fio) and --out");
    if (!a.workload.empty() && !a.fio.empty())
      throw po::error("--workload and --fio: one or the other");
    if (!chart_output_named(a.charts))
      throw po::error("--charts " + a.charts + ": expected png, script or none");
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("", std::make_shared<SplitSink>()));
    spdlog::set_level(a.quiet ? spdlog::level::warn : spdlog::level::info);
    return run(a);
  } catch (const po::error& e) {
    std::fprintf(stderr, "ssdtwin: %s (see ssdtwin --help)\n", e.what());
    return kExitBadInput;
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ssdtwin: error: %s\n", e.what());
    return 1;
  }
}
