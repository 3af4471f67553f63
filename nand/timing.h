// NAND array and bus timing, per cell mode and page type.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "nand/geometry.h"
#include "sim/time.h"

namespace ssdtwin {

class ConfigNode;
struct ParamSection;

struct ModeTiming {
  bool present = false;
  // Array read and program time per page type (lower, middle, upper page...):
  // one value, or one per bit of the cell. Page type = page index % bits.
  std::vector<Tick> tR;
  std::vector<Tick> tPROG;
  Tick tBERS = 0;
  // One-shot programming (3D TLC): all pages of a wordline are transferred
  // and programmed by one operation taking tPROG.
  bool one_shot = false;

  Tick read_time(std::uint32_t page) const { return tR[page % tR.size()]; }
  Tick program_time(std::uint32_t page) const { return tPROG[page % tPROG.size()]; }
};

// Program and erase suspend (drive.nand.suspend; docs/DRIVES.md "Program and erase
// suspend"): a read the host waits for may suspend the program or erase in
// its die's array, run, and let the operation resume. Off unless the config
// turns it on for programs or erases.
struct SuspendTiming {
  bool program = false;  // programs may be suspended
  bool erase = false;    // erases may be suspended
  // From the suspend command until the die takes the read (tPSUS / tESUS in
  // datasheets; the suspend command's cycles are inside it).
  Tick suspend_latency = 0;
  // Added when the operation resumes (the resume command and the array's
  // restart), so the operation ends that much later.
  Tick resume_latency = 0;
  // Suspensions one operation may take; after that its reads wait as they
  // would without suspend.
  std::uint32_t max_per_operation = 1;

  bool enabled() const { return program || erase; }
};

struct NandTiming {
  std::array<ModeTiming, 5> mode{};  // indexed by bits per cell
  double bus_bytes_per_s = 400e6;    // 8-bit channel: MT/s x 1 byte
  Tick t_cmd = 0;                    // command and address cycles on the channel per operation
  // Cache programming: the next program's data-in overlaps the current tPROG.
  bool cache_program = false;
  SuspendTiming suspend;

  // Its keys of drive.nand and the maps below it, declared (sim/params.h).
  static std::vector<const ParamSection*> params();
  static NandTiming from_config(const ConfigNode& nand, const Geometry& geo);

  const ModeTiming& of(CellMode m) const { return mode[bits_per_cell(m)]; }
  Tick bus_time(std::uint64_t bytes) const { return transfer_time(bytes, bus_bytes_per_s); }
  // Pages written by one program operation in `m` (per plane).
  std::uint32_t pages_per_program(CellMode m) const {
    return of(m).one_shot ? bits_per_cell(m) : 1;
  }
};

}  // namespace ssdtwin
