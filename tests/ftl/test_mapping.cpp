// The mapping table and the slot layout: which slot holds a page, and where a slot lies.
#include <catch2/catch.hpp>

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
  CHECK(m.bytes() == (100 + 1000 + 1) * 4);  // one translation page covers all 100
}

TEST_CASE("loading entries ahead of a write leaves every entry as it was", "[ftl][mapping]") {
  // 3 M entries span many memory pages: first touches (stores that keep the
  // value) and later ones (prefetches), on mapped and unmapped entries.
  MappingTable m(3000000, 1000);
  for (Lpn l = 0; l < 3000000; l += 997) m.set(l, l % 1000);
  for (int pass = 0; pass < 2; ++pass)
    for (Lpn l = 0; l < 3000000; l += 331) m.prefetch_entry_for_write(l);
  for (Lpn l = 0; l < 3000000; l += 331)
    REQUIRE(m.lookup(l) == (l % 997 == 0 ? l % 1000 : kUnmapped));
  for (Lpn l = 0; l < 3000000; l += 997) REQUIRE(m.lookup(l) == l % 1000);
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
