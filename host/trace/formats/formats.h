// Factories of the trace-format parsers, one file each beside this one;
// host/trace/trace_formats.cpp lists them in the format table.
#pragma once

#include <memory>

#include "host/trace/trace_formats.h"

namespace ssdtwin {

std::unique_ptr<LineParser> make_msr_parser(const TraceReadOptions& opt);
std::unique_ptr<LineParser> make_blkparse_parser(const TraceReadOptions& opt);
std::unique_ptr<LineParser> make_fio_parser(const TraceReadOptions& opt);
std::unique_ptr<LineParser> make_disksim_parser(const TraceReadOptions& opt);
std::unique_ptr<LineParser> make_mqsim_parser(const TraceReadOptions& opt);
std::unique_ptr<LineParser> make_spc_parser(const TraceReadOptions& opt);
std::unique_ptr<LineParser> make_native_parser(const TraceReadOptions& opt);

}  // namespace ssdtwin
