// The NAND back end: dies with their operation queues, and the channels
// they share.
//
// A die runs one array operation at a time (tR, tPROG, tBERS) while its
// channel is free to move data for other dies. Channels are modelled as
// "busy until" reservations in request order for data transfers; a read or
// erase command slips in between the 4 KiB bursts of a transfer under way
// (reserve_command) rather than waiting for all of it. Each die has two queues: reads
// that a host command waits for (host and mapping reads) go first, then
// programs, erases and GC reads in arrival order.
//
// Program and erase suspend (timing.suspend, off unless configured): a host
// read queued on a die whose array runs a program or erase with suspensions
// left suspends it. After suspend_latency the die's queued reads take the
// array and then the channel as any read does, in queue order, while a host
// read is among them (those arriving meanwhile included); then the operation
// resumes, and everything left in the array ends later by the suspension's
// length plus resume_latency.
#pragma once

#include <cstdint>
#include <vector>

#include "nand/flash_txn.h"
#include "nand/geometry.h"
#include "nand/timing.h"
#include "sim/activity.h"
#include "sim/event_engine.h"
#include "sim/fifo.h"
#include "sim/time.h"

namespace ssdtwin {

// Receives finished transactions (the FTL). Ownership of the txn passes back.
class TxnSink {
 public:
  virtual ~TxnSink() = default;
  virtual void on_txn_complete(FlashTxn* txn) = 0;
};

// Told of every operation submitted to the NAND (firmware time, power,
// fault counters observe the back end without living in it).
class NandObserver {
 public:
  virtual ~NandObserver() = default;
  virtual void on_submit(const FlashTxn& txn) = 0;
};

struct NandStats {
  // Indexed by bits per cell of the mode the operation ran in.
  std::uint64_t reads[5] = {};
  std::uint64_t page_reads[5] = {};  // die-pages read (a multi-plane read counts planes)
  std::uint64_t programs[5] = {};
  std::uint64_t page_programs[5] = {};
  std::uint64_t erases[5] = {};
  std::uint64_t bus_bytes = 0;
  Tick die_busy = 0;  // summed over dies
  // Program and erase suspend: suspensions of each kind, and reads served
  // while one was under way.
  std::uint64_t program_suspends = 0;
  std::uint64_t erase_suspends = 0;
  std::uint64_t suspend_reads = 0;

  std::uint64_t total(const std::uint64_t (&v)[5]) const {
    std::uint64_t s = 0;
    for (auto x : v) s += x;
    return s;
  }
};

class NandArray : public EventTarget {
 public:
  NandArray(EventEngine& engine, const Geometry& geo, const NandTiming& timing);
  void set_sink(TxnSink* sink) { sink_ = sink; }
  void add_observer(NandObserver* o) { observers_.push_back(o); }
  // Told of each array operation and channel transfer (power); null: none.
  void set_activity(ActivityObserver* a) { activity_ = a; }
  // At most `n` dies run operations at once (a lower power state's budget);
  // kNoLimit: all may. Dies over the limit wait their turn in order.
  static constexpr std::uint32_t kNoLimit = 0xFFFFFFFFu;
  void set_op_limit(std::uint32_t n);

  void submit(FlashTxn* txn);

  std::uint32_t queued_programs(std::uint32_t die) const { return dies_[die].lo_count; }
  bool die_idle(std::uint32_t die) const { return !dies_[die].current; }
  // The program running in `die`'s array (the oldest one started), if any:
  // what a power cut interrupts.
  const FlashTxn* programming(std::uint32_t die) const { return dies_[die].in_array.head; }
  // When `die`'s array finishes the operations started on it.
  Tick array_busy_until(std::uint32_t die) const { return dies_[die].array_free_at; }
  const NandStats& stats() const { return stats_; }
  // A drive built from a snapshot goes on counting from the saved totals.
  void restore_stats(const NandStats& s) { stats_ = s; }
  const Geometry& geometry() const { return geo_; }
  const NandTiming& timing() const { return timing_; }

  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 private:
  // kRegisterFree, kProgramDone and kEraseDone are array events: a
  // suspension moves them (array_event_due).
  enum Kind : std::uint32_t { kArrayReadDone, kOpDone, kRegisterFree, kProgramDone, kEraseDone };
  struct Queue {
    FlashTxn* head = nullptr;
    FlashTxn* tail = nullptr;
    void push(FlashTxn* t) {
      t->next = nullptr;
      if (tail)
        tail->next = t;
      else
        head = t;
      tail = t;
    }
    FlashTxn* pop() {
      FlashTxn* t = head;
      head = t->next;
      if (!head) tail = nullptr;
      return t;
    }
  };
  struct Die {
    Queue hi, lo;
    std::uint32_t lo_count = 0;   // programs/erases/GC reads waiting or running
    std::uint32_t hi_hosts = 0;   // suspend: reads in `hi` that may suspend (suspends_array)
    FlashTxn* current = nullptr;  // holds the die's interface (command, data, register)
    Queue in_array;               // programs started, in completion order
    Tick array_free_at = 0;       // the array finishes its last operation
    Tick last_done = 0;
    // Suspend: the operation suspended (null: none), the interface's holder
    // when it was (given back on resume), when the suspend command went in,
    // and when the array can take the suspension's next read.
    FlashTxn* suspended = nullptr;
    FlashTxn* held = nullptr;
    Tick suspended_at = 0;
    Tick read_free_at = 0;
    // The delay suspensions added to the array, summed. An array event
    // carries its low 32 bits as they were when it was scheduled (the lag
    // it misses stays far below 4.29 s, so the difference is exact).
    Tick shift = 0;
    // Array events due while a suspension was under way, held until the
    // resume says by how much they move. At most two programs, a register
    // release and an erase are pending on a die.
    struct Deferred {
      std::uint32_t kind;
      Tick at;
    };
    Deferred deferred[4] = {};
    std::uint32_t deferred_count = 0;
  };

  void dispatch(std::uint32_t die);
  // dispatch() with suspend on or off: off, none of its checks are compiled
  // in (a die's `suspended` stays null and its `shift` 0).
  template <bool kSuspend>
  void dispatch_as(std::uint32_t die);
  void finish(std::uint32_t die, FlashTxn* t);
  // Suspend: whether `t` is a read that may suspend an operation; the
  // operation it would suspend on `d` (null: none may be), `holder` being
  // whoever holds the interface; the resume, at the end of the last read.
  bool suspends_array(const FlashTxn& t) const;
  FlashTxn* suspendable(const Die& d, FlashTxn* holder) const;
  void resume(std::uint32_t die);
  // Array events are scheduled with the die's shift, and checked when they
  // fire: false when the event was moved (or held during a suspension).
  void schedule_array_event(std::uint32_t die, Kind kind, Tick at);
  bool array_event_due(std::uint32_t die, std::uint32_t kind, std::uint64_t arg);
  EventEngine::Lane lane_of(Kind kind) const {
    return kind == kProgramDone ? program_lane_ : EventEngine::kNoLane;
  }
  Tick reserve_channel(std::uint32_t die, Tick duration);
  Tick reserve_command(std::uint32_t die);
  // Under an op limit: whether `die` may start work now (else it queues).
  bool admit_die(std::uint32_t die);
  void release_die(std::uint32_t die);

  EventEngine& engine_;
  // Programs take the same time (or nearly: page types), so across dies
  // they mostly complete in the order they started: an engine lane.
  EventEngine::Lane program_lane_;
  Geometry geo_;
  NandTiming timing_;
  // timing_.suspend.enabled(), read on every dispatch and array event: one
  // flag, not two, when suspend is off.
  bool suspend_;
  // Bus times: a sector's (a command slipped between bursts), and the last
  // size in each direction (programs' data in, reads' data out).
  Tick sector_bus_time_;
  TransferClock bus_in_, bus_out_;
  TxnSink* sink_ = nullptr;
  std::vector<NandObserver*> observers_;
  ActivityObserver* activity_ = nullptr;
  std::uint32_t op_limit_ = kNoLimit;
  std::uint32_t working_dies_ = 0;     // under a limit: dies counted against it
  std::vector<std::uint8_t> working_;  // per die: counted against the limit / queued for it
  std::vector<std::uint8_t> queued_;
  Fifo<std::uint32_t> waiting_dies_;
  std::vector<Die> dies_;
  std::vector<Tick> channel_free_at_;
  std::vector<Tick> channel_cmd_end_;  // end of the last command slipped between bursts
  NandStats stats_;
};

}  // namespace ssdtwin
