#include "host/trace/trace_phase.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <optional>

#include "host/trace/trace_formats.h"
#include "nand/geometry.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/timeseries.h"

namespace ssdtwin {

namespace {

std::vector<std::string> format_choices() {
  std::vector<std::string> formats{"auto"};
  for (const auto& f : trace_format_names()) formats.push_back(f);
  return formats;
}

}  // namespace

const ParamSection& TracePhaseSpec::params() {
  static const ParamSection kSection{
      "workload.phases[].trace",
      "The block trace a phase with rw: trace replays (docs/TRACES.md): the file and its "
      "format, open- or closed-loop replay, and how its addresses map onto the drive.",
      {
          param::text("file", nullptr,
                      "the trace file, relative to the workload file; .gz, .zst and .xz are read "
                      "as they are"),
          param::choice("format", "auto", &format_choices,
                        "the trace format, or auto to detect it from the first lines (never "
                        "between disksim and mqsim)"),
          param::choice("action", "D", "D|Q", "blkparse: replay issue (D) or queue (Q) events"),
          param::text("device", "all",
                      "the disk to replay: all (merged), a device number, or blkparse's "
                      "\"MAJ,MIN\""),
          param::flag("skip_bad_lines", "false",
                      "count and skip malformed lines instead of stopping the run at the first"),
          param::choice("mode", "open", "open|closed",
                        "open: issue each IO at its timestamp / time_scale; closed: ignore the "
                        "timestamps and keep iodepth commands outstanding"),
          param::real("time_scale", "1", 1e-9, 1e9, "",
                      "open loop: trace time divided by this (2 replays twice as fast)"),
          param::integer("iodepth", "0", 0, 65536, "commands",
                         "host command slots; 0: what the device holds (open loop only); closed "
                         "loop: required, at least 1"),
          param::choice("map", "error", "error|wrap|scale",
                        "an IO past the end of the drive: an error, wrapped modulo the user "
                        "capacity, or the trace's span scaled onto the drive"),
          param::amount("offset", "0",
                        "added to every trace address: bytes or % of the user capacity, a "
                        "multiple of 4KiB"),
          param::bytes("span", "0",
                       "map: scale: the trace's address span; 0: found by one pre-pass"),
          param::choice("placement", "none", "none|device|stream",
                        "each write's FDP placement identifier: none, the record's device "
                        "number, or its stream field"),
          param::bytes("max_transfer", "128KiB",
                       "larger IOs are split as a host driver splits them: a multiple of 4KiB up "
                       "to 256MiB"),
      }};
  return kSection;
}

TracePhaseSpec TracePhaseSpec::from_config(const ConfigNode& node, std::uint64_t user_bytes,
                                           const std::string& workload_file) {
  const Params n(node, params());
  TracePhaseSpec t;
  namespace fs = std::filesystem;
  const fs::path file = n.text("file");
  t.file = file.is_absolute()
               ? file.string()
               : (fs::path(workload_file).parent_path() / file).lexically_normal().string();
  if (!fs::is_regular_file(t.file)) n.fail("file", "no such trace file: " + t.file);

  const std::string format = n.choice("format");
  if (format != "auto") t.format = parse_trace_format(format);
  t.read.blkparse_action = n.choice("action")[0];
  const std::string device = n.text("device");
  if (device != "all") {
    t.read.device = parse_trace_device(device);
    if (!t.read.device) n.fail("device", "expected all, a device number, or \"MAJ,MIN\"");
  }
  t.read.skip_bad_lines = n.flag("skip_bad_lines");

  TraceReplaySpec& r = t.replay;
  r.mode = n.choice("mode") == "open" ? ReplayMode::kOpen : ReplayMode::kClosed;
  r.time_scale = n.real("time_scale");
  if (r.mode == ReplayMode::kClosed && !n.has("iodepth"))
    n.fail("iodepth", "closed-loop replay needs a queue depth (trace.iodepth)");
  r.iodepth = static_cast<std::uint32_t>(
      n.integer_within("iodepth", r.mode == ReplayMode::kClosed ? 1 : 0, 65536));
  const std::string map = n.choice("map");
  r.map.mode = map == "wrap" ? MapMode::kWrap : map == "scale" ? MapMode::kScale : MapMode::kError;
  const Amount offset = n.amount("offset");
  r.map.offset = offset.resolve(user_bytes);
  if (offset.is_percent) r.map.offset -= r.map.offset % kSectorBytes;
  if (r.map.offset % kSectorBytes != 0 || r.map.offset >= user_bytes)
    n.fail("offset", "expected a multiple of 4KiB below the drive's user capacity");
  t.span_given = n.has("span");
  r.map.trace_span = n.bytes("span");
  if (t.span_given && r.map.trace_span == 0) n.fail("span", "expected more than 0");
  const std::string placement = n.choice("placement");
  r.placement = placement == "device"   ? TracePlacement::kDevice
                : placement == "stream" ? TracePlacement::kStream
                                        : TracePlacement::kNone;
  const std::uint64_t max_transfer = n.bytes("max_transfer");
  r.max_transfer = static_cast<std::uint32_t>(max_transfer);  // range-checked before use below
  if (max_transfer == 0 || max_transfer % kSectorBytes != 0 || max_transfer > (256u << 20))
    n.fail("max_transfer", "expected a multiple of 4KiB up to 256MiB");
  return t;
}

void TracePhaseSpec::limit_times(Tick interval) {
  if (replay.mode != ReplayMode::kOpen) return;  // closed loop: times are not replayed
  // Also within half of Tick's range, so the scaled arrival time cannot overflow.
  const long double replay_ns = std::min<long double>(
      static_cast<long double>(kMaxIntervals - 1) * static_cast<long double>(interval),
      static_cast<long double>(std::numeric_limits<Tick>::max() / 2));
  const long double trace_ns = replay_ns * replay.time_scale;
  const auto most = static_cast<long double>(std::numeric_limits<Tick>::max());
  read.max_time = trace_ns >= most ? std::numeric_limits<Tick>::max() : static_cast<Tick>(trace_ns);
}

namespace {

// A device number as the trace writes it (blkparse: "MAJ,MIN").
std::string device_name(std::uint32_t device, TraceFormat format) {
  return trace_device_name(device, format);
}

}  // namespace

void check_replay_not_empty(const TracePhaseSpec& t, const std::string& phase,
                            const TraceStats& read, std::uint64_t commands) {
  if (commands > 0 || t.allow_empty) return;
  std::string held =
      std::to_string(read.lines) + " lines, " + std::to_string(read.total_records()) + " records";
  if (t.read.device)
    held += " of device " + device_name(*t.read.device, t.format.value_or(trace_format("native")));
  if (!read.other_devices.empty()) {
    held += "; other devices:";
    for (const auto& [dev, n] : read.other_devices)
      held += " " + device_name(dev, t.format.value_or(trace_format("native"))) + " (" +
              std::to_string(n) + ")";
  }
  throw TraceError(t.file + ": phase '" + phase + "' would replay nothing (" + held +
                   "); set allow_empty: true on the phase if that is intended");
}

TraceStats check_trace_phase(const TracePhaseSpec& t, const std::string& phase,
                             std::uint64_t user_bytes) {
  TracePhaseSpec spec = t;
  if (!spec.format) spec.format = detect_trace_format(t.file, t.read);
  const auto reader = open_trace(t.file, spec.format, t.read);
  // map: scale never places an IO past the end, and its span is unknown
  // until the end of the trace: only the other mappings are checked.
  std::optional<AddressMap> map;
  if (t.replay.map.mode != MapMode::kScale) map.emplace(t.replay.map, user_bytes);
  TraceRecord r;
  MappedIo io;
  std::uint64_t commands = 0;
  while (reader->next(r)) {
    if (r.op == TraceOp::kFlush) continue;  // sent, but moves no data: flushes alone replay nothing
    if (!map || map->place(r, reader->source(), io) || r.op != TraceOp::kTrim) ++commands;
  }
  check_replay_not_empty(spec, phase, reader->stats(), commands);
  return reader->stats();
}

}  // namespace ssdtwin
