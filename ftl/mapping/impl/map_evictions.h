// Factories of the built-in map-cache eviction policies (one file each).
#pragma once

#include <memory>

#include "ftl/mapping/map_cache.h"

namespace ssdtwin {

std::unique_ptr<MapEvictionPolicy> make_lru_eviction(std::uint32_t slots);
std::unique_ptr<MapEvictionPolicy> make_fifo_eviction(std::uint32_t slots);

}  // namespace ssdtwin
