// Workload files: fio-like jobs run as a sequence of phases on one drive.
//
//   workload:
//     name: precondition then random writes
//     seed: 42
//     timeseries: {interval: 1s, per_bytes: 1GB}
//     phases:
//       - {name: fill, precondition: true, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
//       - {name: rw4k, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 60s}
//
// Sizes may be bytes ("64GiB") or percentages: `offset` and `size` of the
// drive's user capacity, `io_size` of the phase's range (as in fio).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "host/arbitration.h"
#include "host/trace/trace_phase.h"
#include "sim/time.h"

namespace ssdtwin {

class ConfigNode;
struct ParamSection;

// kTrace: replay of a block trace (host/trace/trace_phase.h), not a synthetic pattern.
// kReadWrite: sequential reads and writes mixed by the read share, each op
// walking its own position (fio's rw=readwrite); kRandTrim: random trims;
// kTrimWrite: each block trimmed, then written (fio's trimwrite).
enum class RwKind : std::uint8_t {
  kRead,
  kWrite,
  kRandRead,
  kRandWrite,
  kRandRw,
  kTrim,
  kTrace,
  kReadWrite,
  kRandTrim,
  kTrimWrite,
  // Zoned namespaces (host/workload/zone_writer.h): a Zone Management Send
  // reset per zone of the range; a log-structured store with host GC.
  kZoneReset,
  kZoneLog,
};

const char* rw_kind_name(RwKind k);

// Review-style analyses the results writer can run on a phase.
enum class PhaseReportKind : std::uint8_t {
  kNone,
  kFillCurve,
  kWorkingSet,
  kConsistency,
  kLatency,
  kQdSweep,
  kBandwidth,
  kSizeSweep,
  kLoadCurve,
  kNoisyNeighbor,
};

// A phase's part in the degrade-and-recover procedure (Myce): the results
// compare the steady and recovered phases with the FOB phase of the same
// queue depth.
enum class RecoveryRole : std::uint8_t { kNone, kFob, kDegrade, kSteady, kRecovered };

const char* recovery_role_name(RecoveryRole r);

// Stop a phase once its IOPS is in steady state by the SNIA rule
// (sim/steady_state): rounds of `round`, the last `rounds` of them each
// within `tolerance` of their mean, and the fitted line's change across them
// too. The phase's other stop conditions remain upper bounds. Steady state
// must be earned: no window is tested before `after` of measured time (the
// writes the methodology prescribes, e.g. procedure F's hour), and with
// `while_gc` every round of the window must have GC moving data (on a full
// drive a plateau before the spare runs out is the fresh drive's).
// Open-loop arrivals (StorageReview's load curves, procedure G): IOs arrive
// at an offered rate whatever the device does; at most `iodepth` are in the
// device and the rest wait on the host, their queueing delay reported apart
// from device latency. Poisson: exponential gaps; uniform: evenly spaced.
enum class Arrival : std::uint8_t { kPoisson, kUniform };

struct OfferedRate {
  double iops = 0;  // > 0: open loop at this rate
  // A load-curve step: the offered rate is this fraction of the IOPS that
  // phase `of_phase` (the profile's closed-loop maximum) achieved.
  double fraction = 0;
  std::size_t of_phase = 0;
  Arrival arrival = Arrival::kPoisson;
  bool open_loop() const { return iops > 0 || fraction > 0; }
};

struct UntilSteady {
  Tick round = 0;  // 0: not set
  std::uint32_t rounds = 5;
  double tolerance = 0.10;
  // The slope condition's own tolerance, where it differs (fio's
  // steadystate tests one condition: the other's tolerance is infinite).
  double slope_tolerance = 0.10;
  Tick after = 0;         // no steady window closes earlier (from the measured start)
  bool while_gc = false;  // each round of the window has GC moves
};

// Where random IOs land (fio's random_distribution). Skewed kinds pick a
// rank by the distribution and place it through a fixed permutation of the
// range's blocks, so the hot blocks are spread over the range as fio's
// hashing spreads them. Zones: the first zone takes the first `share` of the
// IOs on the range's first `bytes`, and so on.
enum class RandomDist : std::uint8_t { kUniform, kZipf, kPareto, kNormal, kZoned };

struct AccessZone {
  double share = 0;         // of the IOs, 0..1
  double range_share = 0;   // of the range (zoned), 0..1; or
  std::uint64_t bytes = 0;  // absolute size (zoned_abs), when range_share is 0
};

struct RandomDistribution {
  RandomDist kind = RandomDist::kUniform;
  double param = 0;  // zipf theta, pareto h, normal deviation (% of the range)
  std::vector<AccessZone> zones;
};

// "a:b:c" -> {"a", "b", "c"} (empty fields kept), for fio's list syntaxes.
std::vector<std::string> split_at(const std::string& s, char sep);

// fio's random_distribution syntax: random | zipf[:theta] | pareto[:h] |
// normal[:dev] | zoned:access%/range%:... | zoned_abs:access%/size:...
// (sizes read by `size_of`). Throws std::invalid_argument saying what was
// expected.
RandomDistribution parse_random_distribution(
    const std::string& text,
    const std::function<std::optional<std::uint64_t>(const std::string&)>& size_of);

struct PhaseSpec {
  std::string name;
  bool precondition = false;  // results reported apart from measured phases
  // Fast preconditioning: the phase's writes and trims go straight to the
  // FTL's state (mapping, validity, GC, wear) with no NAND timing, and no
  // simulated time passes. Only for write, randwrite and trim phases.
  // `fast: true` (or exact) applies each IO; `fast: steady` (4 KiB random
  // writes over the whole drive) draws the state they converge to from
  // block counts alone (ftl/precondition/steady_layout.h).
  bool fast = false;
  bool steady = false;
  TracePhaseSpec trace;  // rw: trace
  RwKind rw = RwKind::kRead;
  std::uint32_t bs = 4096;  // with bssplit: the largest of its sizes
  // Mixed transfer sizes (as fio's bssplit): each IO draws its size with
  // these weights; `cumulative` rises to 1. Empty: every IO is `bs`.
  struct BsShare {
    std::uint32_t bs;
    double cumulative;
  };
  std::vector<BsShare> bssplit;
  std::uint32_t iodepth = 1;
  // The name as written: phases expanded from a list `iodepth` are named
  // <base_name>_qd<N>, from a list `bs` <base_name>_<size> (e.g. _128KiB);
  // others have name == base_name.
  std::string base_name;
  std::size_t source_index = 0;  // index in the file's phase list (expanded phases share it)
  // The NVMe namespace the stream addresses (its offset and span are in
  // it, and % sizes resolve against it), and its placement identifier: an
  // index in the namespace's placement handles (NVMe FDP; 0 without).
  std::uint32_t nsid = 1;
  std::uint16_t placement = 0;
  // Several placement identifiers (fio's fdp_pli): each IO takes the next
  // in turn, or one drawn at random (fdp_pli_select); empty: `placement`.
  std::vector<std::uint16_t> placements;
  bool placement_random = false;
  // The class of the stream's submission queue (NVMe weighted round robin
  // arbitration; streams take queues in order, modulo the drive's queues,
  // and streams sharing a queue share the last one's class).
  SqPriority priority = SqPriority::kMedium;
  std::uint64_t offset = 0;  // start of the LBA range, bytes
  std::uint64_t span = 0;    // size of the LBA range, bytes
  double read_share = 0.5;   // randrw: share of reads (rwmixread / 100)
  // Stop conditions: whichever comes first (at least one is set).
  std::uint64_t io_bytes = 0;  // 0: not set
  std::uint64_t ios = 0;
  Tick runtime = 0;
  Tick idle_after = 0;  // idle time after the phase (background work runs)
  Tick ramp_time = 0;   // run this long before measuring (as fio's ramp_time)
  // fill_curve: write fill.csv (MB/s per timeseries.per_bytes written), its
  // chart, and the cache size and averages in summary.json. working_set:
  // one row of working_set.csv (span, IOPS, latency, map hit rate).
  // consistency: consistency.csv (IOPS per interval) and the score over the
  // last `score_last` of the phase (average IOPS and average / stddev).
  // latency: latency.csv (IOPS and latency p50/p99/max per interval).
  // qd_sweep: one row of qd_sweep.csv per phase (IOPS, MB/s, latency by
  // queue depth). bandwidth: bandwidth.csv (MB/s per interval).
  // size_sweep: one row of size_sweep.csv per phase (MB/s, IOPS, latency by
  // transfer size, as ATTO charts it). noisy_neighbor: one row of
  // noisy_neighbor.csv per phase (the first stream's read latency
  // p50/p99/p99.9: the tenant watched, alone or beside others).
  // fill_curve, consistency, latency and bandwidth write one file each, so
  // at most one phase of a workload may ask for each of them.
  PhaseReportKind report = PhaseReportKind::kNone;
  Tick score_last = 400'000'000'000;  // consistency score window (AnandTech: last 400 s)
  UntilSteady until_steady;
  OfferedRate rate;  // open-loop arrivals (rate: or a load_curve step)
  RecoveryRole role = RecoveryRole::kNone;

  // fio semantics (host/fio maps job options onto these; the YAML keys of
  // the same names, README). Defaults keep the plain behaviour above.
  RandomDistribution distribution;
  // fio's random map: each block of the range once per pass before any
  // repeats (without it, draws repeat as they fall).
  bool random_map = false;
  std::uint32_t bs_min = 0;       // bsrange: sizes drawn in [bs_min, bs] (0: fixed)
  std::uint32_t block_align = 0;  // random offsets on this grid (0: each IO's own size)
  std::uint64_t seq_skip = 0;     // rw=write:N: bytes skipped after each sequential IO
  std::uint32_t rand_run = 0;     // rw=randread:N: IOs per random offset (0, 1: each its own)
  bool run_identical = false;     // rw_sequencer=identical: the run repeats its offset
  // zonemode=strided: IO stays in a zone of zone_range bytes until zone_size
  // bytes moved, then skips to zone_range + zone_skip further on.
  std::uint64_t zone_size = 0, zone_range = 0, zone_skip = 0;
  // Zoned namespaces (`zoned:`, fio's zonemode=zbd; host/workload/zone_writer.h):
  // writes go to zones at their write pointers, `open_zones` at once (a
  // zone_log's head zones), as writes or Zone Appends; zone_log's data set
  // and collection threshold.
  struct Zoned {
    bool enabled = false;
    std::uint32_t open_zones = 1;
    bool append = false;
    std::uint64_t logical = 0;
    std::uint32_t gc_free_zones = 2;
  } zoned;
  Tick thinktime = 0;  // after each thinktime_blocks IOs: drain, then pause
  std::uint32_t thinktime_blocks = 1;
  Tick start_delay = 0;  // the stream starts this long after the phase
  // Durability (fio's sync=1, fsync/fdatasync=N, end_fsync): every write
  // with FUA; a Flush after every flush_every writes (the stream issues
  // nothing more until it completes, as fio's job waits for its fsync); and
  // one when the stream ends.
  bool fua = false;
  std::uint32_t flush_every = 0;
  bool end_flush = false;
  // Non-zero: this stream draws from a random stream of its own seeded so
  // (concurrent streams); 0: the workload's stream.
  std::uint64_t seed = 0;
  std::string iolog_out;     // write an fio iolog (v3) of the IOs issued
  std::string iolog_device;  // the file name the iolog names
  // Streams that run concurrently with this one in the same phase (fio's
  // jobs between stonewalls, and numjobs clones); each keeps its own
  // iodepth, pattern and stop conditions, and the phase ends with the last.
  std::vector<PhaseSpec> concurrent;
  // A `jobs` phase: each stream's job name, in stream order (else empty).
  std::vector<std::string> stream_names;
  // Per-stream results (PhaseResult::streams), and the interval of their
  // throughput samples and of their logs (0: none).
  bool stream_results = false;
  Tick sample_interval = 0;
  Tick log_interval = 0;

  std::size_t streams() const { return 1 + concurrent.size(); }
  const PhaseSpec& stream(std::size_t k) const { return k == 0 ? *this : concurrent[k - 1]; }
};

struct WorkloadSpec {
  std::string name;
  std::uint64_t seed = 1;
  Tick interval = 1'000'000'000;  // timeseries interval
  // A bug trap: a timed phase whose commands wait this long in simulated
  // time with none completing ends the run with the drive's state (0: off).
  Tick watchdog = 3600 * kSec;
  std::uint64_t per_bytes = 0;  // 0: no per-bytes-written series
  // Latency bounds whose share of IOs summary.json reports per phase and op
  // ("99.9% of writes within 50 us"), ascending.
  std::vector<Tick> latency_thresholds;
  // faults.power_cuts: simulated times of powered running (from the start of
  // the run, not counting earlier recoveries) at which power fails; the
  // drive recovers and the run goes on with the next phase. Or
  // faults.power_cuts_after_ios: host IOs completed (counted by the phases,
  // from the start of the run) at which power fails.
  std::vector<Tick> power_cuts;
  std::vector<std::uint64_t> power_cuts_after_ios;
  // faults.uncorrectable: flash reads that fail every decode, at a rate per
  // read and at chosen byte offsets (the next flash read of each fails once).
  double uncorrectable_rate = 0;
  std::vector<std::uint64_t> uncorrectable_at;
  // faults.fail_block: blocks that stop working at a time (powered time, as
  // power_cuts); checked against the drive's geometry when the run starts.
  struct BlockFault {
    Tick at = 0;
    std::uint32_t die = 0, block = 0;
  };
  std::vector<BlockFault> block_faults;
  std::vector<BlockFault> die_faults;  // faults.fail_die (block unused)
  // power_management: the host's power settings for a drive with a power
  // model (drive.power), by the drive's state names, checked when the run
  // starts. Absent: the drive stays in its first state.
  struct PowerManagement {
    bool given = false;
    std::string state;  // operational state to run in (Set Features); "": the first
    struct Idle {
      std::string state;
      Tick idle = 0;  // time in the state above before the host moves the drive here
    };
    std::vector<Idle> idle_states;  // NVMe APST / SATA HIPM and DevSleep timeouts
    bool device_initiated = true;   // SATA DIPM allowed
  } power;
  std::vector<PhaseSpec> phases;

  // `root` is the `workload` node; sizes given in % resolve against
  // the namespace a phase names (`namespace`, default 1): `ns_bytes[id]` is
  // namespace id's size (0: not declared), or without them the drive's
  // `user_bytes` as namespace 1. Every range is checked against its namespace.
  static WorkloadSpec from_config(const ConfigNode& root, std::uint64_t user_bytes,
                                  const std::vector<std::uint64_t>& ns_bytes = {});
  // Its keys, declared (sim/params.h): the workload, its phases and their
  // maps (a phase's trace map is TracePhaseSpec's).
  static std::vector<const ParamSection*> params();
  // The sections code outside the workload reads through (a sweep's
  // preconditioning phases, errors placed at a fault or a job).
  static const ParamSection& root_params();
  static const ParamSection& faults_params();
  static const ParamSection& fail_block_params();
  static const ParamSection& fail_die_params();
  static const ParamSection& phase_params();  // a phase, or one of its jobs
};

}  // namespace ssdtwin
