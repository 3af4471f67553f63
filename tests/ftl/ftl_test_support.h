// Helpers shared by the FTL test files (tests/ftl/, one test binary,
// test_ftl): a small geometry for the block-manager cases, figures read off
// a phase, drives run with every read checked, and where a page lies.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "../test_support.h"
#include "ftl/address.h"
#include "nand/geometry.h"

namespace ssdtwin::test {

inline Geometry small_geometry() {
  Geometry g;
  g.channels = 2;
  g.dies_per_channel = 1;
  g.planes = 2;
  g.blocks_per_plane = 16;
  g.pages_per_block = 12;
  g.page_size = 16384;
  g.native_mode = CellMode::kTlc;
  return g;
}

inline double iops_of(const PhaseReport& p, IoOp op) {
  return static_cast<double>(p.result.ios[static_cast<int>(op)]) / seconds_of(p);
}

// Runs `yaml` on the small TLC drive with `sets` and every read checked
// against the latest write; the drive stays in `t` for inspection.
inline RunReport run_verified(TestDrive& t, const std::vector<std::string>& sets,
                              const char* yaml) {
  t = make_drive("configs/drives/test_tlc_1gb.yaml", sets, true);
  RunReport r = run_quiet(*t.drive, make_workload(yaml, t.drive->user_bytes()));
  CHECK(t.drive->ftl->stats().verify_errors == 0);
  return r;
}

// The die, block and page holding logical page `lpn`.
inline std::tuple<std::uint32_t, std::uint32_t, std::uint32_t> where(const Drive& d, Lpn lpn) {
  const std::uint32_t m = d.ftl->map().lookup(lpn);
  const Layout layout(d.geo);
  return {layout.die_of(m), layout.block_of(m), layout.page_of(m)};
}

// `sets` with `s` added.
inline std::vector<std::string> with(std::vector<std::string> sets, const std::string& s) {
  sets.push_back(s);
  return sets;
}

}  // namespace ssdtwin::test
