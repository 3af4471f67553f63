// Axes of a parameter study: each axis a list of values, combined as a grid
// (every combination, the last axis varying fastest) or zipped (the i-th
// value of every axis together). One mechanism for a sweep file's axes
// (app/sweep) and a phase's `iodepth: [list]` / `bs: [list]` expansion.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ssdtwin {

enum class AxisCombine { kGrid, kZip };

// Each point as one value index per axis, in order. `sizes` holds each
// axis's number of values (none zero); kZip needs equal sizes (the caller
// reports a mismatch with its own location: zip_mismatch()).
std::vector<std::vector<std::size_t>> combine_axes(const std::vector<std::size_t>& sizes,
                                                   AxisCombine how);

// The first axis whose size differs from axis 0's, or sizes.size() when all agree.
std::size_t zip_mismatch(const std::vector<std::size_t>& sizes);

// `from`, `from` + `step`, ... up to `to` (step > 0), or `from`, `from` *
// `mul`, ... (mul > 1): a numeric range as value texts ("4", "0.25"),
// each followed by `unit` ("KiB"). Throws std::invalid_argument for an
// empty or endless range (the caller names the key).
std::vector<std::string> range_values(double from, double to, double step, double mul,
                                      const std::string& unit);

}  // namespace ssdtwin
