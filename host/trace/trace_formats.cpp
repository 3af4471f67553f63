#include "host/trace/trace_formats.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "host/trace/formats/formats.h"
#include "host/trace/formats/line_fields.h"

namespace ssdtwin {

std::optional<std::uint32_t> parse_trace_device(std::string_view text) {
  std::uint32_t dev = 0;
  if (trace_lines::to_dev(text, dev)) return dev;
  std::uint64_t v = 0;
  if (trace_lines::to_u64(text, v) && v <= std::numeric_limits<std::uint32_t>::max())
    return static_cast<std::uint32_t>(v);
  return std::nullopt;
}

namespace {

// blkparse's "MAJ,MIN" (the kernel's dev_t layout, as to_dev reads it).
std::string major_minor(std::uint32_t device) {
  return std::to_string(device >> 20) + "," + std::to_string(device & ((1u << 20) - 1));
}

}  // namespace

const std::vector<TraceFormatInfo>& trace_formats() {
  static const std::vector<TraceFormatInfo> kFormats = {
      {"msr",
       "MSR Cambridge / SNIA IOTTA CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,"
       "ResponseTime (100 ns filetime, bytes; header optional)",
       &make_msr_parser, true, nullptr},
      {"blkparse",
       "blkparse default text: MAJ,MIN CPU SEQ SECONDS PID ACTION RWBS SECTOR + SECTORS "
       "(the events of one action, D or Q)",
       &make_blkparse_parser, true, &major_minor},
      {"fio", "fio iolog version 2 or 3: [TIMESTAMP_US] FILE ACTION OFFSET LENGTH",
       &make_fio_parser, true, nullptr},
      {"disksim", "DiskSim ASCII: time_ms devno blkno bcount flags (512 B sectors, bit 0x1 read)",
       &make_disksim_parser, false, nullptr},
      {"mqsim", "MQSim/SSDsim ASCII: time_ns devno lba sectors op (512 B sectors, 1 read, 0 write)",
       &make_mqsim_parser, false, nullptr},
      {"spc", "SPC: ASU,LBA,Size,Opcode,Timestamp (512 B sectors, bytes, r/w, seconds)",
       &make_spc_parser, true, nullptr},
      {"native", "time_ns,op,offset_bytes,length_bytes[,stream] (read, write, trim, flush)",
       &make_native_parser, true, nullptr},
  };
  return kFormats;
}

const TraceFormatInfo& trace_format_info(TraceFormat format) {
  return trace_formats().at(format.row());
}

std::string trace_device_name(std::uint32_t device, TraceFormat format) {
  const auto name = trace_format_info(format).device_name;
  return name ? name(device) : std::to_string(device);
}

std::unique_ptr<LineParser> make_line_parser(TraceFormat format, const TraceReadOptions& opt) {
  return trace_format_info(format).make(opt);
}

const char* trace_format_name(TraceFormat f) { return trace_format_info(f).name; }

const std::vector<std::string>& trace_format_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const TraceFormatInfo& f : trace_formats()) v.emplace_back(f.name);
    return v;
  }();
  return names;
}

std::optional<TraceFormat> parse_trace_format(std::string_view name) {
  const auto& all = trace_formats();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (name == all[i].name) return TraceFormat(static_cast<std::uint8_t>(i));
  return std::nullopt;
}

TraceFormat trace_format(std::string_view name) {
  if (const auto f = parse_trace_format(name)) return *f;
  throw std::invalid_argument("no trace format named '" + std::string(name) + "'");
}

}  // namespace ssdtwin
