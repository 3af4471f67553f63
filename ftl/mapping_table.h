// Page-level logical-to-physical mapping at 4 KiB granularity, with the
// reverse (physical-to-logical) map that garbage collection needs to find
// the owner of a valid slot.
//
// Validity is not stored separately: a slot is valid exactly when
// l2p[p2l[ppa]] == ppa. Together that is 8 bytes per 4 KiB of flash
// (2 MiB per GiB), the dominant memory cost of a simulated drive.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/address.h"

namespace ssdtwin {

class MappingTable {
 public:
  MappingTable(std::uint64_t logical_pages, std::uint64_t physical_slots)
      : l2p_(logical_pages, kUnmapped), p2l_(physical_slots, kUnmapped) {}

  std::uint32_t lookup(Lpn lpn) const { return l2p_[lpn]; }
  void set(Lpn lpn, std::uint32_t where) { l2p_[lpn] = where; }
  // Records that flash slot `ppa` now holds `lpn` and points the map at it.
  void map_to_flash(Lpn lpn, Ppa ppa) {
    l2p_[lpn] = ppa;
    p2l_[ppa] = lpn;
  }
  Lpn owner(Ppa ppa) const { return p2l_[ppa]; }
  void clear_owner(Ppa ppa) { p2l_[ppa] = kUnmapped; }
  bool valid(Ppa ppa) const {
    const Lpn l = p2l_[ppa];
    return l != kUnmapped && l2p_[l] == ppa;
  }
  std::uint64_t logical_pages() const { return l2p_.size(); }
  std::uint64_t bytes() const { return (l2p_.size() + p2l_.size()) * sizeof(std::uint32_t); }

 private:
  std::vector<std::uint32_t> l2p_;
  std::vector<Lpn> p2l_;
};

}  // namespace ssdtwin
