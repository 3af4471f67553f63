// The mapping table and the slot layout: which slot holds a page, and where a slot lies.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "ftl/address.h"
#include "ftl/mapping/mapping_table.h"
#include "ftl_test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

TEST_CASE("a slot is valid exactly while the mapping points at it", "[ftl][mapping]") {
  MappingTable m(100, 1000);
  CHECK(m.lookup(5) == kUnmapped);
  m.place(5, 42);
  CHECK(m.valid(42));
  CHECK(m.owner(42) == 5);
  m.place(5, 43);  // overwrite: the old slot loses validity, no bitmap needed
  CHECK_FALSE(m.valid(42));
  CHECK(m.valid(43));
  m.set(5, kUnmapped);  // trim
  CHECK_FALSE(m.valid(43));
  CHECK(m.bytes() == (100 + 4 + 1000 + 1) * 4);  // 4 leaves of 32; one translation page
}

TEST_CASE("loading entries ahead of a write leaves every entry as it was", "[ftl][mapping]") {
  // 3 M entries: prefetches of directory lines, on ranges with a leaf and
  // without one, many memory pages apart.
  MappingTable m(3000000, 1000);
  for (Lpn l = 0; l < 3000000; l += 997) m.set(l, l % 1000);
  for (int pass = 0; pass < 2; ++pass)
    for (Lpn l = 0; l < 3000000; l += 331) m.prefetch_first_level(l);
  for (Lpn l = 0; l < 3000000; l += 331)
    REQUIRE(m.lookup(l) == (l % 997 == 0 ? l % 1000 : kUnmapped));
  for (Lpn l = 0; l < 3000000; l += 997) REQUIRE(m.lookup(l) == l % 1000);
}

TEST_CASE("the forward map keeps every entry as its leaves are handed out and put in order",
          "[ftl][mapping]") {
  // 100,003 entries: 3,126 leaves of 32, the last one partly used. Entries
  // are written in a scrambled order, so that leaves are handed out out of
  // logical order; once half the ranges have one, they are all put in order.
  const std::uint64_t n = 100003;
  MappingTable m(n, 1u << 20, 1000);
  std::vector<std::uint32_t> want(n, kUnmapped);
  CHECK_FALSE(m.tpage_maps_any(7));
  m.set(7000, kUnmapped);  // a trim of a never-written range
  CHECK(m.lookup(7000) == kUnmapped);
  CHECK_FALSE(m.tpage_maps_any(7));
  m.set(7001, 5);
  m.set(7001, kUnmapped);  // its leaf stays, all unmapped
  CHECK_FALSE(m.tpage_maps_any(7));
  std::uint64_t x = 12345;
  auto check_all = [&] {
    for (Lpn l = 0; l < n; ++l) REQUIRE(m.lookup(l) == want[l]);
    for (std::uint32_t t = 0; t < m.tpages(); ++t) {
      bool any = false;
      for (Lpn l = t * 1000; l < std::min<std::uint64_t>(n, (t + 1) * 1000); ++l)
        any = any || want[l] != kUnmapped;
      REQUIRE(m.tpage_maps_any(t) == any);
    }
  };
  for (std::uint64_t i = 0; i < 3 * n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const auto l = static_cast<Lpn>((x >> 33) % n);
    const std::uint32_t v = (x >> 13) % 3 == 0 ? kUnmapped : static_cast<std::uint32_t>(i);
    m.prefetch_first_level(l);
    m.set(l, v);
    want[l] = v;
    if (i == 400) check_all();  // before half the leaves are out (about 380 of 3,126)
  }
  check_all();
  for (Lpn l = 0; l < n; l += 3) {  // and after: sets and lookups without the directory
    m.set(l, l);
    want[l] = l;
  }
  check_all();
}

TEST_CASE("a write's entry and a program's conditional placement act as lookup, set and place",
          "[ftl][mapping]") {
  // 4,003 entries (126 leaves): for_write gives a range its leaf where set()
  // would, and once half have one the table flattens under later writes.
  const std::uint64_t n = 4003;
  MappingTable m(n, 1u << 16, 1000);
  std::vector<std::uint32_t> want(n, kUnmapped);
  std::uint64_t x = 777;
  std::uint32_t ppa = 0;
  for (std::uint64_t i = 0; i < 4 * n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const auto l = static_cast<Lpn>((x >> 33) % n);
    MappingTable::Entry e = m.for_write(l);
    REQUIRE(e.get() == want[l]);
    const std::uint32_t buffered = kBufferBase + static_cast<std::uint32_t>(i % 4096);
    e.set(buffered);
    REQUIRE(m.lookup(l) == buffered);
    // Programmed: placed only while the buffered copy is still current.
    m.will_place(ppa, 2);
    CHECK_FALSE(m.place_if_at(l, buffered + 1, ppa));
    REQUIRE(m.lookup(l) == buffered);
    REQUIRE(m.place_if_at(l, buffered, ppa));
    REQUIRE(m.lookup(l) == ppa);
    REQUIRE(m.owner(ppa) == l);
    REQUIRE(m.valid(ppa));
    want[l] = ppa;
    ppa = (ppa + 1) % (1u << 16);
  }
  for (Lpn l = 0; l < n; ++l) REQUIRE(m.lookup(l) == want[l]);
  // A never-written range reads kUnmapped and takes no conditional placement.
  MappingTable fresh(n, 64, 1000);
  CHECK_FALSE(fresh.place_if_at(100, kBufferBase, 3));
  CHECK(fresh.lookup(100) == kUnmapped);
  CHECK(fresh.owner(3) == kUnmapped);
  // A translation page's location takes it too.
  fresh.set_location(kMapOwner | 2, kBufferBase + 7);
  fresh.will_place(5, 1);
  CHECK(fresh.place_if_at(kMapOwner | 2, kBufferBase + 7, 5));
  CHECK(fresh.location(kMapOwner | 2) == 5);
  CHECK(fresh.owner(5) == (kMapOwner | 2));
}

TEST_CASE("buffer references and flash addresses do not overlap", "[ftl][mapping]") {
  CHECK(is_flash(0));
  CHECK(is_flash(kBufferBase - 1));
  CHECK(is_buffered(kBufferBase));
  CHECK_FALSE(is_buffered(kUnmapped));
  CHECK_FALSE(is_flash(kUnmapped));
}

TEST_CASE("the layout maps slots to die, block and page and back", "[ftl][mapping]") {
  const Geometry g = small_geometry();
  const Layout l(g);
  const std::uint32_t db = l.die_block(1, 7);
  const Ppa p = l.first_slot(db, 5) + 3;
  CHECK(l.die_of(p) == 1);
  CHECK(l.block_of(p) == 7);
  CHECK(l.page_of(p) == 5);
  CHECK(l.slots_per_page() == g.planes * g.page_size / kSectorBytes);
}
