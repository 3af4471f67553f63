// Starting a cache line's load ahead of its use.
#pragma once

namespace ssdtwin {

// GCC counts __builtin_prefetch as no side effect: a function that only
// prefetches (a loop over a command's pages, say) is inferred pure, and a
// call to a pure function that returns nothing is deleted, prefetches and
// all. (The admission-time prefetch of a write's old blocks was compiled
// out that way, unseen.) An empty volatile asm naming the address is a
// side effect the optimiser keeps, and costs no instruction.
inline void prefetch_line(const void* p) {
  __builtin_prefetch(p);
  asm volatile("" : : "r"(p));
}

}  // namespace ssdtwin
