// Set-up every fuzz target shares: libFuzzer calls LLVMFuzzerInitialize once,
// before the first input.
#include <spdlog/spdlog.h>

// Warnings a loader logs would cost more than the parse; nobody reads them here.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}
