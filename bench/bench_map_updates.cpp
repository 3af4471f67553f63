// How fast can memory take the map updates fast preconditioning makes?
// (issue 15). A relocation reads a victim slot's owner (sequential over the
// reverse map), checks and rewrites that owner's forward entry (a random
// access over the whole forward table) and records the new slot's owner
// (sequential). This times exactly that over tables of a drive's size, with
// no FTL around it, one access at a time and with the next owners'
// entries prefetched ahead, so the fast writer's pages per second can be
// read against what the memory allows.
//
//   build/bench/bench_map_updates [USER_GIB] [MOVES_M]    default: 476 GiB user, 200 M moves
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "sim/rng.h"
#include "sim/zero_array.h"

namespace {

using namespace ssdtwin;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Tables {
  ZeroArray<std::uint32_t> l2p, p2l;
  std::uint64_t pages;
};

// A drive after a random overwrite: forward and reverse maps a random
// permutation of each other (every slot valid, owners scattered).
Tables make_tables(std::uint64_t pages) {
  Tables t{ZeroArray<std::uint32_t>(pages), ZeroArray<std::uint32_t>(pages), pages};
  for (std::uint64_t i = 0; i < pages; ++i) t.p2l[i] = static_cast<std::uint32_t>(i);
  Rng rng(1);
  for (std::uint64_t i = pages - 1; i > 0; --i) {  // Fisher-Yates
    const std::uint64_t j = rng.next() % (i + 1);
    const std::uint32_t a = t.p2l[i];
    t.p2l[i] = t.p2l[j];
    t.p2l[j] = a;
  }
  for (std::uint64_t s = 0; s < pages; ++s) t.l2p[t.p2l[s]] = static_cast<std::uint32_t>(s);
  return t;
}

// Moves `moves` slots: victim slots read in order, each owner's forward
// entry checked and pointed at its new slot, written in order from `to`.
// `ahead`: prefetch distance (0: none). Returns moves per second.
double relocate(Tables& t, std::uint64_t moves, std::uint32_t ahead, std::uint64_t& check) {
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t from = 0, to = t.pages / 2;
  for (std::uint64_t k = 0; k < moves; ++k) {
    if (ahead) __builtin_prefetch(&t.l2p[t.p2l[(from + ahead) % t.pages]], 1);
    const std::uint32_t owner = t.p2l[from];
    if (t.l2p[owner] == from) {  // valid: move it
      t.l2p[owner] = static_cast<std::uint32_t>(to);
      const std::uint32_t displaced = t.p2l[to];
      t.p2l[to] = owner;
      t.p2l[from] = displaced;  // keep a permutation so every slot stays valid
      t.l2p[displaced] = static_cast<std::uint32_t>(from);
      check += owner;
    }
    from = from + 1 == t.pages ? 0 : from + 1;
    to = to + 1 == t.pages ? 0 : to + 1;
  }
  return static_cast<double>(moves) / seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  const double gib = argc > 1 ? std::atof(argv[1]) : 476.0;
  const double moves_m = argc > 2 ? std::atof(argv[2]) : 200.0;
  const auto pages = static_cast<std::uint64_t>(gib * (1ull << 30) / 4096);
  const auto moves = static_cast<std::uint64_t>(moves_m * 1e6);
  std::printf("tables: %.0f GiB user, %llu pages, %.2f GiB of forward + reverse map\n", gib,
              static_cast<unsigned long long>(pages),
              static_cast<double>(pages) * 8 / (1ull << 30));
  auto t0 = std::chrono::steady_clock::now();
  Tables t = make_tables(pages);
  std::printf("set-up (random permutation): %.1f s\n", seconds_since(t0));
  std::uint64_t check = 0;
  for (const std::uint32_t ahead : {0u, 8u, 16u, 32u}) {
    const double rate = relocate(t, moves, ahead, check);
    std::printf("relocations, prefetch %2u ahead: %6.1f M moves/s\n", ahead, rate / 1e6);
  }
  std::printf("(checksum %llu)\n", static_cast<unsigned long long>(check));
  return 0;
}
