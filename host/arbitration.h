// Command arbitration (NVMe 1.4, section 4.13): when the controller takes a
// command, which submission queue's head it fetches. A named, pluggable
// kind chosen by `host.nvme.arbitration`:
//   round_robin           every SQ in turn, `arbitration_burst` commands a turn
//   weighted_round_robin  urgent SQs first (strict priority), then the
//                         high/medium/low classes, each taking up to its
//                         weight in commands per round, round robin within
// An SQ's class is set when the host creates it (here: the workload's job
// `priority`); round robin ignores classes, as NVMe's does. The admin queue
// and its class are not modelled. SATA has one queue (NCQ): FIFO.
//
// To add a policy: implement Arbiter in host/arbitration/<name>.cpp, expose
// its factory in host/arbitration/arbiters.h, and add one line to the table
// in host/arbitration.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/policy_table.h"

namespace ssdtwin {

class ConfigNode;
struct ParamSection;

// NVMe's I/O SQ priority classes, highest first (Create I/O Submission
// Queue, QPRIO; urgent is strict priority above the weighted classes).
enum class SqPriority : std::uint8_t { kUrgent, kHigh, kMedium, kLow };
constexpr std::size_t kWeightedClasses = 3;  // high, medium, low

const char* sq_priority_name(SqPriority p);
const std::vector<std::string>& sq_priority_names();    // in enum order
SqPriority parse_sq_priority(const std::string& name);  // name must be one of them

struct ArbitrationConfig {
  std::string policy = "round_robin";
  // Arbitration Burst: commands taken from one SQ per turn (a power of two,
  // 1 to 64). 1, the finest interleaving, so no tenant's burst delays another's.
  std::uint32_t burst = 1;
  // Commands per round of the high, medium and low classes (the Arbitration
  // feature's HPW, MPW, LPW, 1-based here).
  std::array<std::uint32_t, kWeightedClasses> weights{1, 1, 1};
  // `nvme`: the host.nvme block.
  static ArbitrationConfig from_config(const ConfigNode& nvme);
  // Its keys of `drive.host.nvme`, declared (sim/params.h).
  static std::vector<const ParamSection*> params();
};

// Picks the SQ whose head command the controller fetches next. Called once
// per command taken (on the hot path: it allocates nothing); `set_queues`
// and `set_priority` are called when queues are (re)created.
class Arbiter {
 public:
  virtual ~Arbiter() = default;
  virtual const char* name() const = 0;
  // `n` SQs, all medium; the turn starts afresh.
  virtual void set_queues(std::uint32_t n) = 0;
  virtual void set_priority(std::uint32_t sq, SqPriority p) = 0;
  // The SQ to take one command from; waiting[sq]: commands in SQ sq, at
  // least one non-zero. The command is counted as taken.
  virtual std::uint32_t next(const std::vector<std::uint32_t>& waiting) = 0;
};

// Round robin over a set of SQs, up to `burst` commands from one before the
// next with commands gets its turn: the building block of both policies.
class RoundRobinTurn {
 public:
  void assign(std::vector<std::uint32_t> members) {
    members_ = std::move(members);
    at_ = 0;
    left_ = 0;
  }
  // An SQ of the set with commands (counted as taken), or -1 if none has any.
  std::int64_t next(const std::vector<std::uint32_t>& waiting, std::uint32_t burst);

 private:
  std::vector<std::uint32_t> members_;
  std::size_t at_ = 0;      // index in members_ of the SQ whose turn it is
  std::uint32_t left_ = 0;  // commands it may still give this turn
};

using ArbiterInfo = PolicyInfo<Arbiter, const ArbitrationConfig&>;

const std::vector<ArbiterInfo>& arbiters();
std::vector<std::string> arbiter_names();
std::unique_ptr<Arbiter> make_arbiter(const ArbitrationConfig& c);  // c.policy must be registered

}  // namespace ssdtwin
