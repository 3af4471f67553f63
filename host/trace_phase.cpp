#include "host/trace_phase.h"

#include <filesystem>

#include "nand/geometry.h"
#include "sim/config.h"

namespace ssdtwin {

TracePhaseSpec TracePhaseSpec::from_config(const ConfigNode& n, std::uint64_t user_bytes,
                                           const std::string& workload_file) {
  TracePhaseSpec t;
  namespace fs = std::filesystem;
  const fs::path file = n.get_string("file");
  t.file = file.is_absolute() ? file.string()
                              : (fs::path(workload_file).parent_path() / file).lexically_normal().string();
  if (!fs::is_regular_file(t.file)) n.fail("file", "no such trace file: " + t.file);

  std::vector<std::string> formats{"auto"};
  for (const auto& f : trace_format_names()) formats.push_back(f);
  const std::string format = n.get_enum("format", formats, "auto");
  if (format != "auto") t.format = parse_trace_format(format);
  t.read.blkparse_action = n.get_enum("action", {"D", "Q"}, "D")[0];
  const std::string device = n.get_string("device", "all");
  if (device != "all") {
    t.read.device = parse_trace_device(device);
    if (!t.read.device) n.fail("device", "expected all, a device number, or \"MAJ,MIN\"");
  }
  t.read.skip_bad_lines = n.get_bool("skip_bad_lines", false);

  TraceReplaySpec& r = t.replay;
  r.mode = n.get_enum("mode", {"open", "closed"}, "open") == "open" ? ReplayMode::kOpen
                                                                      : ReplayMode::kClosed;
  r.time_scale = n.get_double("time_scale", 1.0, 1e-9, 1e9);
  if (r.mode == ReplayMode::kClosed && !n.has("iodepth"))
    n.fail("iodepth", "closed-loop replay needs a queue depth (trace.iodepth)");
  r.iodepth = static_cast<std::uint32_t>(n.get_int("iodepth", 0, r.mode == ReplayMode::kClosed ? 1 : 0, 65536));
  const std::string map = n.get_enum("map", {"error", "wrap", "scale"}, "error");
  r.map.mode = map == "wrap" ? MapMode::kWrap : map == "scale" ? MapMode::kScale : MapMode::kError;
  const Amount offset = n.get_amount("offset", Amount{});
  r.map.offset = offset.resolve(user_bytes);
  if (offset.is_percent) r.map.offset -= r.map.offset % kSectorBytes;
  if (r.map.offset % kSectorBytes != 0 || r.map.offset >= user_bytes)
    n.fail("offset", "expected a multiple of 4KiB below the drive's user capacity");
  t.span_given = n.has("span");
  r.map.trace_span = n.get_bytes("span", 0);
  if (t.span_given && r.map.trace_span == 0) n.fail("span", "expected more than 0");
  r.max_transfer = static_cast<std::uint32_t>(n.get_bytes("max_transfer", TraceReplaySpec::kDefaultMaxTransfer));
  if (r.max_transfer == 0 || r.max_transfer % kSectorBytes != 0 || r.max_transfer > (256u << 20))
    n.fail("max_transfer", "expected a multiple of 4KiB up to 256MiB");
  return t;
}

}  // namespace ssdtwin
