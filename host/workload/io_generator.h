// Drives one workload phase in closed loop, as fio does: keeps `iodepth`
// commands outstanding, issues the next one when one completes, and stops
// issuing at the phase's first stop condition. Measures what fio would:
// latency from issue to completion, per op, and throughput over time.
//
// With an offered rate (open loop, as vdBench's load curves): IOs arrive at
// that rate (Poisson or evenly spaced) whatever the device does; an arrival
// is issued at once when fewer than `iodepth` commands are out, else it
// waits on the host in arrival order. Arrivals stop at the stop condition;
// those still waiting then are counted (left_on_host), not issued.
//
// A phase may hold several concurrent streams (PhaseSpec::concurrent: fio's
// jobs between stonewalls and their numjobs clones). Each owns `iodepth` of
// the host's command slots, its own pattern, stop conditions, start delay
// and think time, and the phase ends when the last stream has. The phase's
// result sums them all; with stream_results each also gets its own.
// Each stream issues into its own submission queue (stream k: queue k
// modulo the drive's queues), of the class its `priority` gives.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "host/host_interface.h"
#include "host/workload/io_pattern.h"
#include "host/workload/phase_result.h"
#include "host/workload/workload.h"
#include "host/workload/zone_writer.h"
#include "sim/fifo.h"
#include "sim/histogram.h"
#include "sim/rng.h"
#include "sim/steady_state.h"
#include "sim/timeseries.h"

namespace ssdtwin {

// fio's write_iolog (version 3: microseconds from the job's start, file,
// action, offset, length), buffered and written a buffer at a time.
class IologWriter {
 public:
  // Throws std::runtime_error naming `path` when it cannot be written.
  IologWriter(const std::string& path, const std::string& device);
  ~IologWriter();
  IologWriter(const IologWriter&) = delete;
  IologWriter& operator=(const IologWriter&) = delete;
  void io(Tick since_start, IoOp op, std::uint64_t offset, std::uint32_t bytes);
  void close(Tick since_start);

 private:
  void line(Tick since_start, const char* action, std::uint64_t offset, std::uint64_t bytes,
            bool io);
  void flush();
  std::string path_, device_;
  std::FILE* f_ = nullptr;
  std::vector<char> buf_;
  std::size_t used_ = 0;
};

class IoGenerator : public CompletionSink, public EventTarget {
 public:
  // `gauge` (optional) is sampled into the interval series as IOs complete;
  // `offered_iops` > 0 runs the phase's first stream open loop at that rate
  // (the others at their own rate.iops); `gc_work` (optional) counts the
  // drive's GC moves, for until_steady's rounds (required by its while_gc).
  IoGenerator(EventEngine& engine, HostInterface& hif, const PhaseSpec& spec, Rng& rng,
              Tick interval, std::uint64_t per_bytes, PhaseResult& result,
              const Gauge* gauge = nullptr, double offered_iops = 0,
              const Gauge* gc_work = nullptr);
  ~IoGenerator() override;

  // A zoned namespace's layout, for streams with `zoned` (before start();
  // without it such a stream is refused: the drive has no zones).
  void set_zone_layout(const ZoneLayout& layout) { zone_layout_ = layout; }
  void start();
  bool finished() const { return done_streams_ == streams_.size(); }
  // Measurement starts after the phase's ramp time.
  bool measuring() const { return engine_->now() >= measure_from_; }
  // Fraction of the phase done, by its stop condition (for progress lines).
  double progress() const;
  void on_complete(std::uint32_t id) override;
  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  // A power cut (the host runs on): the commands the drive held fail, and
  // their IOs are issued again once a drive is attached. The drive's
  // engine and interface must still exist.
  void drive_lost();
  // The drive recovered from the cut, on a new engine (its clock at the end
  // of the recovery) and interface, `down` after drive_lost: the streams go
  // on where they stopped, their runtime counting powered time only.
  void attach(EventEngine& engine, HostInterface& hif, Tick down);

 private:
  struct Stream;
  enum EventKind : std::uint32_t { kArrival, kStart, kThinkDone };

  bool may_issue(const Stream& s) const;
  // The stream issues nothing now: it thinks, or waits for its flush.
  static bool blocked(const Stream& s);
  // Something to issue in a free slot: a flush due, or an IO allowed.
  bool has_next(const Stream& s) const;
  void begin(Stream& s);
  // false: the stream's zone writer had nothing to issue now (zoned).
  bool issue(Stream& s, std::uint32_t id);
  bool issue_next(Stream& s, std::uint32_t id);  // the flush due, else an IO
  // Counts a completed IO in the phase's results and its stream's.
  void record(Stream& s, const HostCommand& c, Tick now);
  // A zoned stream's command completed (its status, an append's LBA).
  void zone_completed(Stream& s, std::uint32_t id);
  void issue_flush(Stream& s, std::uint32_t id);
  void flush_done(Stream& s, std::uint32_t id);
  void fill(Stream& s);            // issue into free slots while allowed
  void stream_stopped(Stream& s);  // issues no more; done once its commands are
  // The host interface's command table and queues for this phase: each
  // stream's submission queue with its class.
  void open_queues();
  void finish();  // the last command of the last stream has completed

  Tick next_gap(Stream& s);
  void stop_arrivals(Stream& s);

  EventEngine* engine_;  // the drive's, replaced after a power cut (attach)
  HostInterface* hif_;
  PhaseResult& result_;
  const Gauge* gauge_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<std::uint32_t> stream_of_id_;  // command slot -> stream
  std::size_t done_streams_ = 0;
  std::uint32_t outstanding_ = 0;
  Tick busy_since_ = 0;  // when outstanding_ last rose from 0
  Tick phase_start_ = 0;
  Tick measure_from_ = 0;
  ZoneLayout zone_layout_;
};

}  // namespace ssdtwin
