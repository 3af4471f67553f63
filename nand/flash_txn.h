// A flash transaction: one operation on one die (a multi-plane read,
// program or erase of a die-page or die-block), as the FTL hands it to the
// NAND back end. Transactions come from a pool and are chained intrusively
// into die queues, so queueing never allocates.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "nand/geometry.h"
#include "sim/time.h"

namespace ssdtwin {

enum class TxnOp : std::uint8_t { kRead, kProgram, kErase };

// Who asked for the operation: decides priority on the die and where the
// completion goes.
// kRecovery: reads of a RAIN stripe's other members, rebuilding a page the
// ECC could not correct (ftl/recovery/read_recovery.h).
enum class TxnSource : std::uint8_t { kHostRead, kHostWrite, kGc, kMapping, kRecovery };

// What became of a read's data: decoded as read, after read-retry steps,
// rebuilt from its RAIN stripe, or lost (uncorrectable, no rebuild).
enum class ReadStatus : std::uint8_t { kClean, kRetried, kRebuilt, kLost };

struct FlashTxn {
  TxnOp op = TxnOp::kRead;
  TxnSource source = TxnSource::kHostRead;
  CellMode mode = CellMode::kTlc;  // mode the block is programmed in
  // Array operations the transaction takes, one after another: 1 for one
  // multi-plane operation; the plane count when the controller issues each
  // plane's page on its own (ftl.gc.multi_plane_programs: false).
  std::uint8_t plane_ops = 1;
  std::uint32_t die = 0;
  std::uint32_t block = 0;  // die-block index within the die
  std::uint32_t page = 0;   // first die-page
  std::uint32_t pages = 1;  // die-pages covered (one-shot programs cover a wordline)
  std::uint32_t bytes = 0;  // data moved over the channel
  std::uint64_t owner = 0;  // index of the host command or GC context
  // Reads: the block's erase count when issued (verification catches a read
  // that lost a race with an erase).
  std::uint32_t block_erases = 0;
  // Host programs: write-buffer slots the program holds until it completes.
  // GC reads: the slots valid when the read was issued, the moves the
  // firmware processes (`bytes` may carry whole pages).
  std::uint32_t slots = 0;
  // Reads: array sensings this operation takes (soft-decision retry steps
  // sense several times), read-retry steps taken so far and needed (decided
  // when the first decode fails; kUndecided before), and the outcome.
  static constexpr std::uint8_t kUndecided = 0xFF;
  std::uint8_t senses = 1;
  std::uint8_t retry = 0;
  std::uint8_t retry_need = kUndecided;
  ReadStatus status = ReadStatus::kClean;
  // Mapping reads: a host read's lookup waits for this translation page (a
  // load for a map update does not), so it may suspend a program or erase
  // as the host's data reads may (drive.nand.suspend).
  bool for_host_read = false;
  // Programs and erases: times the operation was suspended for reads.
  std::uint8_t suspends = 0;
  Tick issued = 0;  // submitted to the die queue, then: started on the die
  FlashTxn* next = nullptr;
};

// Grows in chunks and recycles, so pointers stay valid and the steady state
// does not allocate.
class TxnPool {
 public:
  FlashTxn* get() {
    if (!free_) grow();
    FlashTxn* t = free_;
    free_ = t->next;
    *t = FlashTxn{};
    ++live_;
    return t;
  }
  void put(FlashTxn* t) {
    t->next = free_;
    free_ = t;
    --live_;
  }
  std::size_t live() const { return live_; }

 private:
  void grow() {
    constexpr std::size_t kChunk = 1024;
    chunks_.push_back(std::make_unique<FlashTxn[]>(kChunk));
    FlashTxn* c = chunks_.back().get();
    for (std::size_t i = 0; i < kChunk; ++i) {
      c[i].next = free_;
      free_ = &c[i];
    }
  }
  std::vector<std::unique_ptr<FlashTxn[]>> chunks_;
  FlashTxn* free_ = nullptr;
  std::size_t live_ = 0;
};

}  // namespace ssdtwin
