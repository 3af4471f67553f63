// A workload phase that replays a block trace (`rw: trace`):
//
//   - name: replay
//     rw: trace
//     trace: {file: traces/msr_sample.csv, format: msr, mode: open, time_scale: 1,
//             map: wrap, offset: 0, device: all, max_transfer: 128KiB}
//
// Keys (host/trace/trace_replay.h has the semantics): file (relative to the
// workload file), format (auto | msr | blkparse | fio | disksim | mqsim |
// spc | native; auto never picks between disksim and mqsim), action (D | Q,
// blkparse), mode (open | closed), time_scale (open loop), iodepth (closed
// loop: required; open loop: host command slots, default what the device
// holds), map (error | wrap | scale), offset (bytes or % of user capacity),
// span (the trace's address span for map: scale; default one pre-pass),
// device (all | N | "MAJ,MIN"), max_transfer, skip_bad_lines.
#pragma once

#include <optional>
#include <string>

#include "host/trace/trace_reader.h"
#include "host/trace/trace_replay.h"

namespace ssdtwin {

class ConfigNode;
struct ParamSection;

struct TracePhaseSpec {
  std::string file;                   // as resolved (relative to the workload file)
  std::optional<TraceFormat> format;  // none: detect from the file
  TraceReadOptions read;
  TraceReplaySpec replay;
  bool span_given = false;   // map: scale with a configured span (else one pre-pass)
  bool allow_empty = false;  // the phase's allow_empty: a replay may issue nothing

  // `n` is the phase's `trace` map; `workload_file` locates relative paths.
  static TracePhaseSpec from_config(const ConfigNode& n, std::uint64_t user_bytes,
                                    const std::string& workload_file);
  static const ParamSection& params();  // the `trace` map's keys, declared (sim/params.h)
  // Open loop: records later than a replay can reach, with the phase's
  // time series in rows of `interval` (sim/timeseries.h: kMaxIntervals),
  // become bad lines (TraceReadOptions::max_time), the last row left for
  // the last IOs to complete in.
  void limit_times(Tick interval);
};

// A trace phase that issues no command (an empty or header-only trace, a
// `device` the trace does not hold, nothing but flushes) throws TraceError
// naming the file and what it held, unless the phase allows it.
void check_replay_not_empty(const TracePhaseSpec& t, const std::string& phase,
                            const TraceStats& read, std::uint64_t commands);

// `ssdtwin check`: reads the phase's trace once, streamed as the replay
// reads it, and places every IO on a drive of `user_bytes` as the replay
// would. Throws TraceError (file:line) for the first bad line, an IO past
// the end (map: error) or larger than the drive, or a replay that would
// issue nothing; returns what was read.
TraceStats check_trace_phase(const TracePhaseSpec& t, const std::string& phase,
                             std::uint64_t user_bytes);

}  // namespace ssdtwin
