// The records of small traces, kept across the phases of one run: a
// workload that replays one trace many times (MQSim's tpcc-small x50, one
// trace phase per repetition) parses it once. Parsing a text record costs
// about as much as simulating a small IO, so a repeated short trace would
// otherwise spend much of its run re-reading the file.
//
// A trace read to its end within the limit (one limit for all the traces
// kept) is kept: its records and the reader's final statistics. Later
// readers of the same file, format and read options replay them from
// memory and report the same statistics, so a phase's results do not
// depend on whether its trace came from the file or the cache. A trace over
// the limit streams from the file every time, as before (memory stays
// constant for hour-long traces). The file is assumed unchanged for the
// length of the run.
//
// Owned by the run (app/runner.cpp); no global state.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "host/trace/trace_reader.h"

namespace ssdtwin {

class TraceRecordCache {
 public:
  // 48 bytes a record: 256 Ki records (12 MiB), for all the traces kept,
  // covers short traces replayed in loops; longer ones are streamed.
  static constexpr std::size_t kDefaultMaxRecords = std::size_t{1} << 18;
  explicit TraceRecordCache(std::size_t max_records = kDefaultMaxRecords);
  ~TraceRecordCache();
  TraceRecordCache(const TraceRecordCache&) = delete;
  TraceRecordCache& operator=(const TraceRecordCache&) = delete;

  // A reader of `path` as open_trace would give: from memory when a reader
  // of the same file, format and options was read to its end before (and
  // was kept), else from the file, kept if it ends within the limit. The
  // cache must outlive the reader.
  std::unique_ptr<TraceReader> open(const std::string& path, TraceFormat format,
                                    const TraceReadOptions& opt);
  // scan_trace's statistics, without reading the file again when it is kept.
  TraceStats scan(const std::string& path, TraceFormat format, const TraceReadOptions& opt);

  // Traces kept (read whole within the limit), for tests.
  std::size_t kept() const;

 private:
  friend class RecordingTraceReader;
  struct Entry;
  void keep(std::unique_ptr<Entry> e);
  std::size_t room() const;  // records that can still be kept
  Entry* find(const std::string& path, TraceFormat format, const TraceReadOptions& opt);
  std::size_t max_records_;
  std::size_t kept_records_ = 0;
  std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace ssdtwin
